import { t } from '../i18n';
import { type StateName, stateOf } from '../fleet/states';

/** A client's live state: a colour and a word, so it reads without colour too. */
export function StateBadge(props: { state?: string }) {
  const state: StateName = stateOf(props.state);
  return <span class={`state state-${state}`}>{t(`state.${state}`)}</span>;
}
