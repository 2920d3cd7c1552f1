import assert from 'node:assert/strict';
import { ImagesConfig } from '../../../plugins/images';
import { type Lab, addresses, startLab } from '../../support/lab';
import type { StartOptions } from '../../support/server';

export interface ImageSite extends Lab {
  /** A repository with the addresses 10.99.0.1, 127.0.1.250 (the clients' network) and 127.0.2.250. */
  repository: number;
  /** The repository directory (config repository.directory). */
  directory: string;
  images(): Promise<any[]>;
}

export const repositoryAddresses = ['10.99.0.1', '127.0.1.250', '127.0.2.250'];

/** Clients 127.0.1.1, 127.0.1.2, ... in one room (netmask 255.255.255.0), each with the repository. */
export async function imageSite(
  count = 1,
  config: Record<string, unknown> = {},
  server: Omit<StartOptions, 'config'> = {},
): Promise<ImageSite> {
  let repository = 0;
  const lab = await startLab({
    ips: addresses('127.0.1', count),
    server: { ...server, config },
    async prepare(s) {
      const repo = await s.post('/repository/add', { name: 'repo', ip: repositoryAddresses });
      assert.equal(repo.status, 200, `repository/add: ${repo.text}`);
      repository = repo.body.id;
      return { repo_id: repository };
    },
  });
  return {
    ...lab,
    repository,
    directory: lab.s.app.config.section('repository', ImagesConfig).directory,
    async images() {
      const r = await lab.s.get('/images');
      assert.equal(r.status, 200, `GET /images: ${r.text}`);
      return r.body.images;
    },
  };
}

/** What a newer live agent answers to POST /image/create (agent-extensions.md). */
export function createAnswer(request: { body: any }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    disk: request.body.disk,
    partition: request.body.partition,
    code: request.body.code,
    id: request.body.id,
    name: request.body.name,
    repository: request.body.repository,
    software: 'Ubuntu 22.04 LTS\nbash 5.1\n',
    clonator: 'partclone',
    compressor: 'lzop',
    filesystem: 'EXT4',
    datasize: 8589934592,
    size: 4294967296,
    perms: 420,
    lastupdate: 1664897550,
    checksum: 'D41D8CD98F00B204E9800998ECF8427E',
    ...extra,
  };
}

/** The ctime pattern the web console parses (`%a %b %d %H:%M:%S %Y`). */
export const ctimePattern =
  /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ( [1-9]|[12][0-9]|3[01]) ([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]) ([0-9]{4})$/;
