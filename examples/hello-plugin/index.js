// The smallest useful ogserve plugin: a config key, a route with a validated body, a
// service of a plugin it requires, and a listener on the event bus. examples/hello-complete
// adds an agent command, an event of its own and a console view.
const { definePlugin, Type, Ipv4, badRequest, ErrorCode } = require('ogserve');
const { Inventory } = require('ogserve/plugins/inventory');

module.exports = definePlugin({
  name: 'hello',
  requires: ['inventory'],
  config: Type.Object({ greeting: Type.String({ default: 'Hello' }) }, { additionalProperties: false }),
  register(ctx) {
    const inventory = ctx.use(Inventory);
    const spec = {
      permission: 'read',
      // A token limited to centers or rooms may greet the clients inside them: core refuses
      // any other client it finds where the route says its body names them.
      scoped: { clients: 'client' },
      body: Type.Object({ client: Ipv4() }),
      response: Type.Object({ message: Type.String() }),
      summary: 'Greet a client by name',
    };
    ctx.router.get('/hello', spec, async ({ body }) => {
      const client = await inventory.clientByIp(body.client);
      if (!client) throw badRequest(ErrorCode.unknownId, `no client with ip ${body.client}`, 'client');
      return { message: `${ctx.config.greeting}, ${client.name} in room ${client.room.name}` };
    });
    // After the fact: the third argument says what the listener does, for its failures' log line.
    ctx.events.on(
      'inventory.created',
      ({ kind, client }) => {
        if (kind === 'client') ctx.log.info({ client }, `${ctx.config.greeting}, new client ${client}`);
      },
      'greet a new client',
    );
  },
});
