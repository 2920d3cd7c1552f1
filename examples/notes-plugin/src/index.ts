import { Database, EntitySchema, ErrorCode, Ipv4, Type, badRequest, definePlugin, inject, injectable } from 'ogserve';
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

  async add(client: string, text: string): Promise<Note> {
    return this.db.transactional(async (em) => {
      const note = em.create(NoteEntity, { client, text });
      await em.flush();
      return note;
    });
  }

  list(client: string): Promise<Note[]> {
    return this.db.fork().find(NoteEntity, { client }, { orderBy: { id: 'asc' } });
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
      async ({ body }) => {
        if ((await notes.list(body.client)).length >= ctx.config.max_per_client)
          throw badRequest(ErrorCode.invalidField, `client ${body.client} has ${ctx.config.max_per_client} notes already`, 'client');
        const note = await notes.add(body.client, body.text);
        void ctx.events.emit('notes.added', { client: body.client, text: body.text });
        return { id: note.id };
      },
    );
    const listing = Type.Object({ notes: Type.Array(Type.Object({ id: Type.Integer(), text: Type.String() })) });
    const query = Type.Object({ client: Ipv4() });
    ctx.router.get('/notes', { permission: 'read', scoped, body: query, response: listing }, async ({ body }) => ({
      notes: (await notes.list(body.client)).map(({ id, text }) => ({ id, text })),
    }));
  },
});
