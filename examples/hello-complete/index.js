// A complete third-party ogserve plugin: a config key, a route with a validated body, a
// service of a plugin it requires, a hook and a listener on the event bus, an agent command
// the REST API and the scheduler both send, an event of its own, and a view in the web
// console (console/view.js).
// Enable it with "plugins": [..., "./path/to/hello-complete"]; it needs no install of its
// own: ogserve resolves require('ogserve') for the plugins it loads.
const path = require('node:path');
const { definePlugin, Type, Ipv4, badRequest, ErrorCode } = require('ogserve');
const { Inventory } = require('ogserve/plugins/inventory');
const { AgentCommands, AgentLink, DispatchAnswer, paramsOf, sendCommand, withClients } = require('ogserve/plugins/agents');

module.exports = definePlugin({
  name: 'hello',
  requires: ['inventory', 'agents'],
  console: { title: { en: 'Hello', es: 'Hola' }, dir: path.join(__dirname, 'console'), entry: 'view.js' },
  config: Type.Object(
    {
      greeting: Type.String({ default: 'Hello' }),
      // A site rule: client names start with this ('' for no rule).
      name_prefix: Type.String({ default: '' }),
    },
    { additionalProperties: false },
  ),
  register(ctx) {
    const inventory = ctx.use(Inventory);
    const spec = {
      permission: 'read',
      // A token limited to centers or rooms may greet the clients inside them: core refuses
      // any other client it finds where the route says its body names them.
      scoped: { clients: 'client' },
      body: Type.Object({ client: Ipv4() }),
      // What a 200 answer holds: published in GET /openapi.json, checked by ogserve's tests.
      response: Type.Object({ message: Type.String() }),
      summary: 'Greet a client by name',
    };
    ctx.router.get('/hello', spec, async ({ body }) => {
      const client = await inventory.clientByIp(body.client);
      if (!client) throw badRequest(ErrorCode.unknownId, `no client with ip ${body.client}`, 'client');
      return { message: `${ctx.config.greeting}, ${client.name} in room ${client.room.name}` };
    });

    // A hook, before a client is added or updated: the rule refuses the request with the
    // field named, and nothing is written.
    ctx.events.hook('client.check', ({ name }) => {
      const prefix = ctx.config.name_prefix;
      if (name !== undefined && !name.startsWith(prefix)) {
        throw badRequest(ErrorCode.invalidField, `name must start with '${prefix}'`, 'name');
      }
    });
    // A listener, after the fact: an agent connected. The third argument says what it does,
    // for the error logged (with the request) and counted if it ever throws.
    ctx.events.on('agent.connected', ({ client, name }) => ctx.log.info({ client }, `${ctx.config.greeting}, ${name}`), 'greet the agent');

    // An agent command, defined once: POST /hello/wave and a scheduled `hello` step are
    // checked by `params` and sent as `request` makes them. It asks the agent to print the
    // greeting on the PC's console with the agent's own script command.
    const wave = ctx.use(AgentCommands).define({
      name: 'hello',
      path: 'shell/run',
      params: Type.Object({ times: Type.Optional(Type.Integer({ minimum: 1, maximum: 9 })) }),
      request: (params) => ({
        method: 'POST',
        path: 'shell/run',
        body: {
          run: Array(params.times ?? 1)
            .fill(`echo '${ctx.config.greeting.replace(/'/g, '')}'`)
            .join('; '),
          echo: false,
        },
      }),
    });
    const link = ctx.use(AgentLink);
    const waveSpec = {
      permission: 'shell',
      scoped: { clients: 'clients' },
      body: withClients(wave.params),
      response: DispatchAnswer,
      summary: "Print the greeting on clients' consoles",
    };
    ctx.router.post('/hello/wave', waveSpec, async ({ body }) => {
      const dispatch = await sendCommand(link, wave, paramsOf(body), body.clients);
      // After the fact, for every listener (the events stream, webhooks): typed in ogserve
      // by declaration merging when the plugin is TypeScript.
      void ctx.events.emit('hello.waved', { clients: dispatch.outcomes.filter((o) => o.outcome === 'sent').map((o) => o.addr) });
      return { clients: dispatch.outcomes };
    });
  },
});
