import { Type } from '@sinclair/typebox';
import { definePlugin, Port } from 'ogserve';
import { Inventory } from '../inventory';
import { AgentCommands } from './commands';
import { HardwareItemEntity } from './entities/hardware';
import { HardwareProfileEntity, SoftwareProfileEntity } from './entities/profile';
import { SoftwareItemEntity } from './entities/software';
import { AgentLink } from './link';
import { agentMetrics } from './metrics';
import { agentRoutes } from './routes';
import { defineAgentCommands } from './own-commands';
import { SoftwareInventory } from './software';
import { HardwareInventory } from './hardware';
import { agentsImport } from './import-part';

export { AgentLink } from './link';
export { AgentCommands, type AgentCommand, dispatchAnswer, dispatchEach, paramsOf, sendCommand, withClients } from './commands';
export { askerOf, type Asker, type DispatchObserver, type DispatchOrigin, type ObservedDispatch } from './observers';
export { SoftwareInventory } from './software';
export { DispatchAnswer } from './schemas';
export { ImageName, isImageName } from './image-name';
export { HardwareInventory } from './hardware';
export type { AnswerHandler } from './link';
export type { GuestAgent, GuestGate } from './guests';
export type { Configuration } from './configuration';
export {
  AgentLinkError,
  type AgentAnswer,
  type AgentRequest,
  type AgentState,
  type ClientListing,
  type Dispatch,
  type LastResult,
  type Outcome,
} from './types';

export default definePlugin({
  name: 'agents',
  requires: ['inventory'],
  import: { agents: agentsImport },
  // 2: software and hardware profiles (new tables only).
  schemaVersion: 2,
  entities: [HardwareItemEntity, SoftwareItemEntity, SoftwareProfileEntity, HardwareProfileEntity],
  // The agents' commands that change a disk or run anything on a client are rights apart.
  permissions: {
    image: { description: "change a client's disks: partition, format, create and restore images", roles: ['imager', 'admin'] },
    shell: { description: 'run commands on clients (given to a token explicitly)' },
  },
  config: Type.Object(
    {
      ip: Type.String({ default: '0.0.0.0', format: 'ipv4' }),
      /** A number, or digits in a string as `rest.port` takes them. */
      port: Port({ default: 8889 }),
      /** Periodic probe of every connected agent, for sites without a console; 0 = off (the reference). */
      probe_interval_s: Type.Number({ default: 0, minimum: 0 }),
      /** A probe is answered at once even by a busy agent: silence this long drops the connection. */
      probe_timeout_s: Type.Number({ default: 30, exclusiveMinimum: 0 }),
      /**
       * How long a relayed command may run before it fails; 0 = never (the reference). The
       * default, 4 hours, outlasts an image create or restore of a large disk over a slow
       * link, yet a wedged agent does not stay busy forever.
       */
      command_timeout_s: Type.Number({ default: 14400, minimum: 0 }),
      /** Largest answer read from an agent (the reference drops at 128 KiB; software lists and shell output grow past that). */
      max_answer_bytes: Type.Integer({ default: 16 * 1024 * 1024, minimum: 1024, maximum: 1024 * 1024 * 1024 }),
      /**
       * Most JSON values (objects, arrays, strings, numbers...) one answer may hold; a refresh of
       * 1,024 partitions and 4,096 cached images holds about 26,000. Each costs the service time
       * to build: an answer of millions of tiny values drops the connection instead.
       */
      max_answer_values: Type.Integer({ default: 50_000, minimum: 1000 }),
      /** A started answer must be complete within this (slowloris peers trickling bytes are dropped); 0 = no limit. */
      answer_timeout_s: Type.Number({ default: 120, minimum: 0 }),
      /** A new connection whose connect refresh is not answered within this is dropped; 0 = never. */
      connect_timeout_s: Type.Number({ default: 300, minimum: 0 }),
      /**
       * Descriptors kept free for REST, the database, logs and boot services: the agent
       * listener holds at most (ulimit -n) - fd_reserve agents and refuses the rest until room frees.
       */
      fd_reserve: Type.Integer({ default: 256, minimum: 16 }),
      /** A refused-connection warning is logged at most once per this many seconds. */
      saturation_log_interval_s: Type.Number({ default: 60, exclusiveMinimum: 0 }),
      /**
       * What one address repeats (connections from an address no client has, session events
       * that make no sense) is logged once at once, then counted: one line per address per interval.
       */
      peer_log_interval_s: Type.Number({ default: 60, exclusiveMinimum: 0 }),
      /** GET /hardware `type`: the reference's (Spanish) descriptions, what its consoles show, or English names. */
      hardware_type_names: Type.Union([Type.Literal('reference'), Type.Literal('english')], { default: 'reference' }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const inventory = ctx.use(Inventory);
    const link = ctx.make(AgentLink);
    ctx.provide(AgentLink, link);
    agentMetrics(ctx, link);
    ctx.provide(SoftwareInventory, ctx.make(SoftwareInventory));
    ctx.provide(HardwareInventory, new HardwareInventory(ctx.db, ctx.config.hardware_type_names, { inventory, events: ctx.events }));

    const commands = ctx.make(AgentCommands);
    ctx.provide(AgentCommands, commands);
    const own = defineAgentCommands(commands, link, inventory, ctx.db, ctx.events);

    agentRoutes(ctx, link, inventory, own, ctx.config.hardware_type_names);
    ctx.onStart(() => link.start(ctx.listen));
    ctx.onStop(() => link.stop());
  },
});
