import { useState } from 'preact/hooks';
import { Dialog } from '../components/Dialog';
import { fleet, loadTree } from '../fleet/fleet';
import type { TreeNode } from '../fleet/tree';
import { t } from '../i18n';
import { enabled, may, useServer } from '../plugins';
import { href } from '../router';
import { useStore } from '../store';
import { BulkRooms } from './fleet/BulkRooms';
import { CsvImport } from './fleet/CsvImport';
import { CenterForm } from './fleet/NodeDialogs';

/** Every room of the tree (rooms may sit in room folders). */
function rooms(nodes: TreeNode[]): TreeNode[] {
  return nodes.flatMap((n) => (n.type === 'room' ? [n] : n.type === 'computer' ? [] : rooms(n.children)));
}

type Step = 'center' | 'rooms' | 'pcs' | 'agents';

/**
 * A fresh site's first steps, on the dashboard until its PCs are there: a center, its rooms
 * (many at once), its PCs from a CSV file or a dhcpd.conf, then a PC switched on, each ticked as
 * it is done and each one click from its form. Whoever may not change the inventory is told
 * an administrator does it.
 */
export function FirstRun() {
  const info = useServer();
  const { model, states } = useStore(fleet);
  const [open, setOpen] = useState<Step | null>(null);
  const [note, setNote] = useState('');
  if (!model) return null;
  const centers = model.roots;
  const roomList = rooms(centers);
  const pcs = model.byIp.size;
  const up = [...model.byIp.keys()].some((ip) => states.has(ip));
  if (pcs > 0 && up) return null;
  if (!may(info, 'POST /center/add')) {
    return pcs === 0 ? <p class="hint first-run-empty">{t('firstRun.askAdmin')}</p> : null;
  }
  const done: Record<Step, boolean> = { center: centers.length > 0, rooms: roomList.length > 0, pcs: pcs > 0, agents: up };
  const steps: { key: Step; title: string; text: string; action?: string }[] = [
    { key: 'center', title: t('firstRun.center'), text: t('firstRun.centerText'), action: t('fleet.addCenter') },
    { key: 'rooms', title: t('firstRun.rooms'), text: t('firstRun.roomsText'), action: t('bulkRooms.title') },
    { key: 'pcs', title: t('firstRun.pcs'), text: t('firstRun.pcsText'), action: t('csvImport.title') },
    { key: 'agents', title: t('firstRun.agents'), text: t('firstRun.agentsText') },
  ];
  const next = steps.find((s) => !done[s.key])?.key;
  const closed = async () => {
    setOpen(null);
    await loadTree();
  };
  return (
    <section aria-labelledby="first-run-title" class="first-run">
      <h2 id="first-run-title">{t('firstRun.title')}</h2>
      <p class="hint">{t('firstRun.progress', { done: steps.filter((s) => done[s.key]).length, total: steps.length })}</p>
      <ol class="checklist">
        {steps.map((step) => (
          <li key={step.key} data-step={step.key} data-done={String(done[step.key])} class={done[step.key] ? 'done' : ''}>
            <span class="tick" aria-hidden="true">
              {done[step.key] ? '✓' : ''}
            </span>
            <div>
              <strong>{step.title}</strong>
              {done[step.key] && <span class="sr-only"> ({t('firstRun.done')})</span>}
              <p>{step.text}</p>
              {step.action && !done[step.key] && (step.key !== 'rooms' || done.center) && (step.key !== 'pcs' || done.rooms) && (
                <button type="button" class={step.key === next ? 'primary' : ''} onClick={() => setOpen(step.key)}>
                  {step.action}
                </button>
              )}
            </div>
          </li>
        ))}
      </ol>
      {enabled(info, 'auth') && may(info, 'POST /users') && (
        <p class="hint">
          {t('firstRun.users')} <a href={href('users')}>{t('nav.users')}</a>
        </p>
      )}
      {info?.timeZone && <p class="hint">{t('firstRun.zone', { zone: info.timeZone })}</p>}
      {note && (
        <p role="status" class="saved">
          {note}
        </p>
      )}
      {open === 'center' && (
        <Dialog title={t('fleet.addCenter')} onClose={() => setOpen(null)}>
          <CenterForm done={closed} />
        </Dialog>
      )}
      {open === 'rooms' && centers[0] && (
        <Dialog title={t('firstRun.roomsIn', { center: centers[0].name })} onClose={() => void closed()} wide>
          <BulkRooms
            center={centers[0].id}
            done={(added) => {
              setNote(t('bulkRooms.result', { count: added, refused: 0 }));
              void closed();
            }}
          />
        </Dialog>
      )}
      {open === 'pcs' && (
        <Dialog title={t('csvImport.title')} onClose={() => setOpen(null)} wide>
          <CsvImport
            done={(added) => {
              setNote(t('csvImport.added', { count: added }));
              void closed();
            }}
          />
        </Dialog>
      )}
    </section>
  );
}
