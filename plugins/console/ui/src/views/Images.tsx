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
                <td class="row-actions">
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
    [t('kind.center'), String(image.center_id)],
    [t('images.software'), String(image.software_id)],
  ];
  return (
    <div>
      <dl class="facts">{facts.map(([k, v]) => [<dt key={`k${k}`}>{k}</dt>, <dd key={`v${k}`}>{v}</dd>])}</dl>
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
