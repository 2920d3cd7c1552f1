import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { Dialog } from '../components/Dialog';
import { ErrorNote } from '../components/ErrorNote';
import { fleet } from '../fleet/fleet';
import { humanBytes } from '../format';
import { t } from '../i18n';
import { useStore } from '../store';
import type { Image } from '../types';
import { useAsync } from '../useAsync';
import { TableScroll } from '../components/TableScroll';

/** Images: the list with the repository's disk, details, delete, and the centers an image is restricted to. */
export function Images() {
  const images = useAsync(() => get<{ disk: { free: number; total: number }; images: Image[] }>('/images'));
  const [details, setDetails] = useState<Image | null>(null);
  const [deleting, setDeleting] = useState<Image | null>(null);
  /** Counts deletes: the trash is read again after each. */
  const [deletes, setDeletes] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const disk = images.value?.disk;
  return (
    <section aria-labelledby="images-title">
      <h1 id="images-title">{t('nav.images')}</h1>
      {disk && <p>{t('images.disk', { free: humanBytes(disk.free), total: humanBytes(disk.total) })}</p>}
      <ErrorNote error={images.error ?? error} />
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">{t('field.name')}</th>
              <th scope="col">{t('image.description')}</th>
              <th scope="col">{t('setup.size')}</th>
              <th scope="col">{t('images.modified')}</th>
              <th scope="col">{t('image.repository')}</th>
              <th scope="col">{t('images.state')}</th>
              <th scope="col">
                <span class="sr-only">{t('actions.toolbar')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(images.value?.images ?? []).map((image) => (
              <tr key={image.id} data-image={image.name}>
                <td>{image.name}</td>
                <td>{image.description}</td>
                <td>{humanBytes(image.size)}</td>
                <td>{image.modified}</td>
                <td>{image.repo_ip}</td>
                <td class={image.state === 'damaged' ? 'warning' : undefined} data-state={image.state} title={image.damage || undefined}>
                  {t(`imageState.${image.state ?? 'available'}`)}
                </td>
                <td class="row-actions">
                  <button
                    type="button"
                    onClick={async () => {
                      try {
                        await post('/image/check', { id: image.id });
                        images.reload();
                      } catch (e) {
                        setError(e);
                      }
                    }}
                  >
                    {t('images.check')}
                  </button>
                  <button type="button" onClick={() => setDetails(image)}>
                    {t('images.details')}
                  </button>
                  <button type="button" class="danger-outline" onClick={() => setDeleting(image)}>
                    {t('node.delete')}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {images.value?.images.length === 0 && <p class="hint">{t('images.none')}</p>}
      <Trash deletes={deletes} reloaded={() => images.reload()} />
      {details && (
        <Dialog title={details.name} onClose={() => setDetails(null)} wide>
          <ImageDetails image={details} />
        </Dialog>
      )}
      {deleting && (
        <Dialog title={`${t('node.delete')} ${deleting.name}`} onClose={() => setDeleting(null)}>
          <p class="warning">{t('images.confirmDelete', { name: deleting.name })}</p>
          <div class="buttons">
            <button
              type="button"
              class="danger"
              onClick={async () => {
                try {
                  await post('/image/delete', { image: String(deleting.id) });
                  setDeleting(null);
                  images.reload();
                  setDeletes((n) => n + 1);
                } catch (e) {
                  setError(e);
                  setDeleting(null);
                }
              }}
            >
              {t('node.delete')}
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}

function ImageDetails(props: { image: Image }) {
  const { image } = props;
  const { model } = useStore(fleet);
  const restriction = useAsync(() => get<{ scopes: number[] }>('/image/restrict', { image: image.id }), [image.id]);
  const [centers, setCenters] = useState<Set<number> | null>(null);
  const [status, setStatus] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const chosen = centers ?? new Set(restriction.value?.scopes ?? []);
  const facts: [string, string][] = [
    [t('image.description'), image.description],
    [t('setup.size'), humanBytes(image.size)],
    [t('images.datasize'), humanBytes(image.datasize)],
    [t('images.modified'), image.modified],
    [t('images.permissions'), image.permissions],
    [t('images.type'), String(image.type)],
    [t('image.repository'), `${image.repo_id} (${image.repo_ip})`],
    [t('images.checksum'), image.checksum],
    [t('images.sha256'), image.sha256 ?? ''],
    [t('images.state'), t(`imageState.${image.state ?? 'available'}`)],
    ...(image.damage ? ([[t('images.damage'), image.damage]] as [string, string][]) : []),
    [t('images.lastCheck'), image.checked ? new Date(image.checked).toLocaleString() : ''],
    [t('kind.center'), String(image.center_id)],
    [t('images.software'), String(image.software_id)],
  ];
  return (
    <div>
      <dl class="facts">{facts.map(([k, v]) => [<dt key={`k${k}`}>{k}</dt>, <dd key={`v${k}`}>{v}</dd>])}</dl>
      <Versions image={image} />
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setStatus(null);
          try {
            await post('/image/restrict', { image: image.id, scopes: [...chosen] });
            setSaved(true);
          } catch (error) {
            setStatus(error);
          }
        }}
      >
        <fieldset>
          <legend>{t('images.restrict')}</legend>
          <p class="hint">{t('images.restrictHint')}</p>
          {(model?.roots ?? []).map((center) => (
            <label class="checkbox" key={center.id}>
              <input
                type="checkbox"
                checked={chosen.has(center.id)}
                onChange={(e) => {
                  const next = new Set(chosen);
                  if (e.currentTarget.checked) next.add(center.id);
                  else next.delete(center.id);
                  setSaved(false);
                  setCenters(next);
                }}
              />
              {center.name}
            </label>
          ))}
        </fieldset>
        <ErrorNote error={restriction.error ?? status} />
        <div class="buttons">
          <button type="submit" class="primary">
            {t('save')}
          </button>
          {saved && (
            <span role="status" class="saved">
              {t('saved')}
            </span>
          )}
        </div>
      </form>
    </div>
  );
}

interface KeptVersion {
  version: number;
  file: string;
  size: number;
  sha256: string;
  state: Image['state'];
  written: string;
  kept: string;
}

/** An image's kept versions (GET /image/versions), restorable by version. */
function Versions(props: { image: Image }) {
  const versions = useAsync(() => get<{ versions: KeptVersion[] }>(`/image/versions?id=${props.image.id}`), [props.image.id]);
  const list = versions.value?.versions ?? [];
  return (
    <section aria-label={t('images.versions')}>
      <h3>{t('images.versions')}</h3>
      {list.length === 0 ? (
        <p class="hint">{t('images.noVersions')}</p>
      ) : (
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">{t('images.version')}</th>
              <th scope="col">{t('setup.size')}</th>
              <th scope="col">{t('images.modified')}</th>
              <th scope="col">{t('images.state')}</th>
            </tr>
          </thead>
          <tbody>
            {list.map((v) => (
              <tr key={v.version} data-version={v.version}>
                <td>{v.file}</td>
                <td>{humanBytes(v.size)}</td>
                <td>{new Date(v.written).toLocaleString()}</td>
                <td>{t(`imageState.${v.state}`)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

interface Trashed {
  id: number;
  name: string;
  bytes: number;
  trashed: string;
  expires: string;
}

/** Deleted images waiting in the trash (GET /image/trash), each recoverable (POST /image/recover). */
function Trash(props: { deletes: number; reloaded: () => void }) {
  const trash = useAsync(() => get<{ trash: Trashed[] }>('/image/trash'), [props.deletes]);
  const [error, setError] = useState<unknown>(null);
  const list = trash.value?.trash ?? [];
  return (
    <section aria-labelledby="images-trash">
      <h2 id="images-trash">{t('images.trash')}</h2>
      <ErrorNote error={trash.error ?? error} />
      {list.length === 0 ? (
        <p class="hint">{t('images.trashEmpty')}</p>
      ) : (
        <TableScroll>
          <table class="grid">
            <thead>
              <tr>
                <th scope="col">{t('field.name')}</th>
                <th scope="col">{t('setup.size')}</th>
                <th scope="col">{t('images.goesAt')}</th>
                <th scope="col">
                  <span class="sr-only">{t('actions.toolbar')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((item) => (
                <tr key={`${item.id}-${item.trashed}`} data-trashed={item.name}>
                  <td>{item.name}</td>
                  <td>{humanBytes(item.bytes)}</td>
                  <td>{new Date(item.expires).toLocaleString()}</td>
                  <td class="row-actions">
                    <button
                      type="button"
                      onClick={async () => {
                        try {
                          await post('/image/recover', { id: item.id });
                          trash.reload();
                          props.reloaded();
                        } catch (e) {
                          setError(e);
                        }
                      }}
                    >
                      {t('images.recover')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
