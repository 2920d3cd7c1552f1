import { Type } from '@sinclair/typebox';
import { bundledParts } from '../parts';
import type { LegacyImage } from '../model';
import { refusalOf } from './body-check';
import { UniqueKeys, alreadyThere, decide, idRefusal, label, type Planning } from './context';

const table = 'imagenes';
const columns = { name: 'nombreca', description: 'descripcion', disk: 'numdisk', partition: 'numpar', code: 'codpar', group_id: 'grupoid' };

/** The fields of POST /image/create that a stored image keeps, judged by the same rules. */
const ImageFields = Type.Pick(bundledParts.images.createParams, ['name', 'description', 'disk', 'partition', 'code', 'group_id']);

/** Fields agents fill in, which ogserve's columns hold only up to their length. */
const agentColumns = ['clonator', 'compressor', 'filesystem'] as const;

/**
 * Images, by the rules of the images ogserve creates itself: a name that is a safe file
 * name, unique. A repository, center or source computer that leads nowhere is cleared with
 * a note (0, as ogserve keeps an unknown one).
 */
export function planImages(p: Planning): void {
  p.ledger.read(table, p.site.images.length);
  const names = new UniqueKeys('name', p.rules.held.keys.imageNames);
  for (const image of p.site.images) {
    const row = label(table, image.id, image.name);
    const legacy = { row, identity: image.name, held: p.rules.held.rows.images, what: 'name' };
    if (alreadyThere(p, p.images, table, image.id, p.rules.held.images, legacy)) continue;
    const body = {
      name: image.name,
      description: image.description,
      disk: image.disk,
      partition: image.partition,
      code: image.code,
      group_id: image.groupId ?? 0,
    };
    const reason =
      idRefusal(image.id) ?? refusalOf(ImageFields, body, columns, table) ?? agentColumnRefusal(image) ?? names.taken(image.name);
    const kept = decide(p, p.images, table, row, image.id, reason, () => ({
      id: image.id,
      name: image.name,
      description: image.description,
      repositoryId: reference(p, row, image.repositoryId, (id) => p.repositories.whyNot(id), 'repository'),
      centerId: reference(p, row, image.centerId, (id) => p.centers.whyNot(id), 'center'),
      groupId: body.group_id,
      clientId: reference(p, row, image.clientId, (id) => p.clients.whyNot(id), 'source computer'),
      disk: image.disk,
      partition: image.partition,
      code: image.code,
      type: image.type ?? bundledParts.images.defaultType,
      softwareId: image.softwareProfileId ?? 0,
      datasize: image.datasize,
      created: image.created === null ? 0n : BigInt(Math.floor(localTime(image.created) / 1000)),
      revision: image.revision,
      clonator: image.clonator,
      compressor: image.compressor,
      filesystem: image.filesystem,
    }));
    if (kept) {
      names.hold(image.name, row);
      p.plan.images.push(kept);
    }
  }
}

function agentColumnRefusal(image: LegacyImage): string | undefined {
  for (const column of agentColumns) {
    const length = bundledParts.images.columnLength(column);
    if (image[column].length > length) return `'${column}' is longer than the ${length} characters ogserve keeps (${table}.${column})`;
  }
  return undefined;
}

/** A reference an image keeps as a plain number: 0 (unknown) with a note when it leads nowhere. */
function reference(p: Planning, row: string, id: number | null, whyNot: (id: number) => string | undefined, noun: string): number {
  if (!id) return 0;
  const why = whyNot(id);
  if (why === undefined) return id;
  p.ledger.changed(table, row, `${why}: imported without a ${noun}`);
  return 0;
}

/** 'YYYY-MM-DD HH:MM:SS' in the server's local time zone, as the reference wrote it, in ms since 1970. */
function localTime(text: string): number {
  const [date = '', time = ''] = text.split(' ');
  const [y, mo, d] = date.split('-').map(Number);
  const [h, mi, s] = time.split(':').map(Number);
  return new Date(y!, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0).getTime();
}
