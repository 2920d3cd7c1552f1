/** The client states GET /clients reports, in the order the legend shows them. A client it does not list is off. */
export const stateNames = ['off', 'WOL_SENT', 'OPG', 'BSY', 'LNX', 'LNXS', 'WIN', 'WINS', 'VDI'] as const;
export type StateName = (typeof stateNames)[number];

export function stateOf(reported: string | undefined): StateName {
  return reported && (stateNames as readonly string[]).includes(reported) ? (reported as StateName) : 'off';
}
