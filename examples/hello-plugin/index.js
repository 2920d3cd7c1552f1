// A complete third-party ogserve plugin: a config key, a route with a validated body, a
// service of a plugin it requires, and a view in the web console (console/view.js).
// Enable it with "plugins": [..., "./path/to/hello-plugin"].
const path = require('node:path');
const { definePlugin, Type, Ipv4, badRequest, ErrorCode } = require('ogserve');
const { Inventory } = require('ogserve/plugins/inventory');

module.exports = definePlugin({
  name: 'hello',
  requires: ['inventory'],
  console: { title: { en: 'Hello', es: 'Hola' }, dir: path.join(__dirname, 'console'), entry: 'view.js' },
  config: Type.Object({ greeting: Type.String({ default: 'Hello' }) }, { additionalProperties: false }),
  register(ctx) {
    const inventory = ctx.use(Inventory);
    const spec = {
      permission: 'read',
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
  },
});
