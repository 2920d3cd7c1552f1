import { useEffect, useState } from 'preact/hooks';
import { get } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { fleet, patchFleet } from '../../fleet/fleet';
import { t } from '../../i18n';
import { may, useServer } from '../../plugins';
import { useStore } from '../../store';

interface ImageName {
  id: number;
  name: string;
}

/**
 * The fleet narrowed to the PCs holding an image (GET /image/clients): a choice of the
 * images (GET /images); picking one shows only the PCs one of whose partitions holds it,
 * with a chip naming the image, as the dashboard's numbers narrow it.
 */
export function ImageFilter() {
  const info = useServer();
  const { filters } = useStore(fleet);
  const [images, setImages] = useState<ImageName[]>([]);
  const [error, setError] = useState<Error | null>(null);
  const allowed = may(info, 'GET /images') && may(info, 'GET /image/clients');
  useEffect(() => {
    if (!allowed) return;
    get<{ images: ImageName[] }>('/images').then(
      (answer) => setImages([...answer.images].sort((a, b) => a.name.localeCompare(b.name))),
      () => setImages([]),
    );
  }, [allowed]);
  if (!allowed || images.length === 0) return null;
  const pick = async (id: string) => {
    setError(null);
    const image = images.find((i) => String(i.id) === id);
    if (!image) return;
    try {
      const answer = await get<{ clients: string[] }>(`/image/clients?id=${image.id}`);
      patchFleet({ filters: { ...filters, only: { label: t('fleet.withImage', { name: image.name }), ips: new Set(answer.clients) } } });
    } catch (e) {
      setError(e as Error);
    }
  };
  return (
    <label class="result-filter">
      {t('fleet.image')}{' '}
      <select value="" onInput={(e) => void pick(e.currentTarget.value)}>
        <option value="">{t('fleet.pickImage')}</option>
        {images.map((i) => (
          <option key={i.id} value={String(i.id)}>
            {i.name}
          </option>
        ))}
      </select>
      <ErrorNote error={error} />
    </label>
  );
}
