import type { TreeModel } from '../../fleet/tree';
import type { SavedGroup } from '../../groups/groups';
import { t } from '../../i18n';

/** What a group's filter finds, in words, its place named as the fleet's tree names it. */
export function groupFilterWords(filter: SavedGroup['filter'], model: TreeModel | null | undefined): string {
  const key = filter.within ? `${filter.within.type}:${filter.within.id}` : '';
  const place = key ? (model?.byKey.get(key)?.name ?? key) : '';
  if (filter.text && place) return t('groups.findsTextWithin', { text: filter.text, place });
  if (filter.text) return t('groups.findsText', { text: filter.text });
  if (place) return t('groups.findsWithin', { place });
  return t('groups.findsAll');
}
