// A complete third-party ogserve plugin: a config key, a route with a validated body,
// and a service of a plugin it requires. Enable it with "plugins": [..., "./path/to/hello-plugin"].
const { definePlugin, Type, Ipv4, badRequest, ErrorCode } = require('ogserve');
const { Inventory } = require('ogserve/plugins/inventory');

module.exports = definePlugin({
  name: 'hello',
  requires: ['inventory'],
  config: Type.Object({ greeting: Type.String({ default: 'Hello' }) }, { additionalProperties: false }),
  register(ctx) {
    const inventory = ctx.use(Inventory);
    ctx.router.get('/hello', { body: Type.Object({ client: Ipv4() }) }, async ({ body }) => {
      const client = await inventory.clientByIp(body.client);
      if (!client) throw badRequest(ErrorCode.unknownId, `no client with ip ${body.client}`, 'client');
      return { message: `${ctx.config.greeting}, ${client.name} in room ${client.room.name}` };
    });
  },
});
