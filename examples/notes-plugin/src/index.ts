import { Database, type EntityManager, EntitySchema, ErrorCode, Ipv4, Type, badRequest, definePlugin, inject, injectable } from 'ogserve';
import { Inventory } from 'ogserve/plugins/inventory';

declare module 'ogserve' {
  interface EventMap {
    'notes.added': { client: string; text: string };
  }
}

export interface Note {
  id: number;
  client: string;
  text: string;
}

const NoteEntity = new EntitySchema<Note>({
  name: 'Note',
  tableName: 'notes',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    client: { type: 'string', length: 15, index: true },
    text: { type: 'string', length: 200 },
  },
});

@injectable()
export class Notes {
  constructor(@inject(Database) private readonly db: Database) {}

  // Each method works in its caller's unit of work (a route's `em`), joining its transaction;
  // given none, it opens its own.
  async add(client: string, text: string, em?: EntityManager): Promise<Note> {
    return this.db.transactional(async (tx) => {
      const note = tx.create(NoteEntity, { client, text });
      await tx.flush();
      return note;
    }, em);
  }

  list(client: string, em?: EntityManager): Promise<Note[]> {
    return this.db.unit(em).find(NoteEntity, { client }, { orderBy: { id: 'asc' } });
  }
}

const NoteBody = Type.Object({ client: Ipv4(), text: Type.String({ minLength: 1, maxLength: 200 }) });

export default definePlugin({
  name: 'notes',
  requires: ['inventory'],
  entities: [NoteEntity],
  permissions: { notes: { description: 'write notes on client PCs', roles: ['operator', 'admin'] } },
  config: Type.Object({ max_per_client: Type.Integer({ default: 100, minimum: 1 }) }, { additionalProperties: false }),
  register(ctx) {
    const notes = ctx.make(Notes);
    const inventory = ctx.use(Inventory);
    // Every route of this plugin names a client the inventory knows (this hook sees only them).
    ctx.hooks.preHandler(async ({ body }) => {
      const { client } = body as { client?: string };
      if (client && !(await inventory.clientByIp(client))) throw badRequest(ErrorCode.unknownId, `no client ${client}`, 'client');
    });
    const scoped = { clients: 'client' } as const;
    ctx.router.post(
      '/notes',
      { permission: 'notes', scoped, body: NoteBody, response: Type.Object({ id: Type.Integer() }) },
      async ({ body, em }) => {
        if ((await notes.list(body.client, em)).length >= ctx.config.max_per_client)
          throw badRequest(ErrorCode.invalidField, `client ${body.client} has ${ctx.config.max_per_client} notes already`, 'client');
        const note = await notes.add(body.client, body.text, em);
        void ctx.events.emit('notes.added', { client: body.client, text: body.text });
        return { id: note.id };
      },
    );
    const listing = Type.Object({ notes: Type.Array(Type.Object({ id: Type.Integer(), text: Type.String() })) });
    const query = Type.Object({ client: Ipv4() });
    ctx.router.get('/notes', { permission: 'read', scoped, body: query, response: listing }, async ({ body, em }) => ({
      notes: (await notes.list(body.client, em)).map(({ id, text }) => ({ id, text })),
    }));
  },
});
