import { csvRow, saveText } from '../../csv';
import { stateOf } from '../../fleet/states';
import type { TreeModel, TreeNode } from '../../fleet/tree';
import { colonMac } from '../../format';
import type { ClientListing } from '../../types';

/** The fleet's clients `ips` as a CSV file the browser saves: what the tree shows of each, with where it is. */
export function exportFleet(
  ips: readonly string[],
  model: TreeModel | null,
  live: Map<string, ClientListing>,
  macs: Map<string, string>,
): void {
  if (!model) return;
  const lines = [csvRow(['name', 'ip', 'mac', 'center', 'room', 'folder', 'state', 'last_result'])];
  for (const ip of ips) {
    const node = model.byIp.get(ip);
    if (!node) continue;
    const listing = live.get(ip);
    const mac = macs.get(ip);
    lines.push(
      csvRow([
        node.name,
        ip,
        mac ? colonMac(mac) : '',
        ancestor(node, 'center')?.name ?? '',
        ancestor(node, 'room')?.name ?? '',
        ancestor(node, 'folder')?.name ?? '',
        stateOf(listing?.state),
        listing?.last_cmd.result ?? '',
      ]),
    );
  }
  saveText(`${lines.join('\r\n')}\r\n`, 'fleet.csv', 'text/csv');
}

function ancestor(node: TreeNode, type: TreeNode['type']): TreeNode | undefined {
  for (let at = node.parent; at; at = at.parent) if (at.type === type) return at;
  return undefined;
}
