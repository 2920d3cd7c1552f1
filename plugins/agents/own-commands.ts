import { Type } from '@sinclair/typebox';
import { type Database, Number16, type PluginEvents } from 'ogserve';
import type { Inventory } from '../inventory';
import type { AgentCommands } from './commands';
import { AnswerError, readConfiguration } from './configuration';
import { readHardware, storeHardware } from './hardware';
import type { AgentLink } from './link';
import { readSoftware, storeSoftware } from './software';

const none = Type.Object({});
const DiskPartition = Type.Object({ disk: Number16(), partition: Number16() });
const Digits = (maxLength: number) => Type.String({ pattern: `^[0-9]{1,${maxLength}}$` });
const Word = () => Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9_-]+$' });

/** A missing `type` is refused: repartitioning is destructive and the label type must not be guessed (the reference refuses it too). */
const Setup = Type.Object({
  type: Type.Union([Type.Literal('MSDOS'), Type.Literal('GPT')]),
  disk: Digits(3),
  cache: Digits(1),
  cache_size: Digits(19),
  partition_setup: Type.Array(
    Type.Object({ partition: Digits(3), code: Word(), filesystem: Word(), size: Digits(19), format: Digits(1) }),
    { minItems: 1, maxItems: 16 },
  ),
});

/**
 * The commands of the agent itself: power, refresh, hardware and software inventory,
 * session and partitioning. Their answers (configuration, hardware, software) are stored
 * here; the REST routes and the scheduler send them through the registry.
 */
export function defineAgentCommands(commands: AgentCommands, link: AgentLink, inventory: Inventory, db: Database, events: PluginEvents) {
  // The configuration answer (refresh, setup): the agent kind of Linux/Windows agents,
  // or the disks and partitions of a live agent, stored in one transaction.
  const storeConfiguration = async (client: { id: number; ip: string }, body: unknown) => {
    const configuration = readConfiguration(body);
    if (configuration.kind === 'os') {
      link.reported(client.ip, { speed: configuration.speed, state: configuration.state });
      return;
    }
    if (configuration.speed) link.reported(client.ip, { speed: configuration.speed });
    await inventory.storeDiskSetup(client.id, configuration.entries, configuration.serialNumber);
  };

  return {
    // Power commands are sent even to a busy client, as the reference does.
    poweroff: commands.define({
      name: 'poweroff',
      path: 'poweroff',
      params: none,
      request: () => ({ method: 'POST', path: 'poweroff', force: true }),
    }),
    reboot: commands.define({
      name: 'reboot',
      path: 'reboot',
      params: none,
      request: () => ({ method: 'POST', path: 'reboot', force: true }),
    }),
    stop: commands.define({
      name: 'stop',
      path: 'stop',
      params: none,
      request: () => ({ method: 'POST', path: 'stop', force: true }),
      endsWithDisconnect: true,
    }),
    refresh: commands.define({
      name: 'refresh',
      path: 'refresh',
      params: none,
      request: () => ({ method: 'GET', path: 'refresh' }),
      stored: (client, answer) => storeConfiguration(client, answer.body),
    }),
    hardware: commands.define({
      name: 'hardware',
      path: 'hardware',
      params: none,
      request: () => ({ method: 'GET', path: 'hardware' }),
      stored: async (client, answer) => {
        const after = readHardware(answer.body);
        const before = await storeHardware(db, inventory, client.id, after);
        await events.tell('client.hardware.reported', { client: client.ip, clientId: client.id, before, after });
      },
    }),
    software: commands.define({
      name: 'software',
      path: 'software',
      params: DiskPartition,
      request: (params) => ({ method: 'GET', path: 'software', body: params }),
      // The agent's answer names the partition but not the disk: the request says which.
      stored: async (client, answer, request) => {
        const disk = Number((request.body as { disk?: unknown } | undefined)?.disk);
        if (!Number.isInteger(disk) || disk < 0) throw new AnswerError('a software answer to a request naming no disk');
        const { partition, lines } = readSoftware(answer.body);
        const before = await storeSoftware(db, inventory, client.id, disk, partition, lines);
        await events.tell('client.software.reported', { client: client.ip, clientId: client.id, disk, partition, before, after: lines });
      },
    }),
    session: commands.define({
      name: 'session',
      path: 'session',
      params: DiskPartition,
      request: (params) => ({ method: 'POST', path: 'session', body: params }),
    }),
    setup: commands.define({
      name: 'setup',
      path: 'setup',
      params: Setup,
      request: (params) => ({ method: 'POST', path: 'setup', body: params }),
      stored: (client, answer) => storeConfiguration(client, answer.body),
    }),
  };
}
