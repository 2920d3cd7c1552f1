import { type TString, Type } from '@sinclair/typebox';
import { Name } from 'ogserve';

const textDescription = "in the PC's name, address or MAC, or its room's or center's name (case ignored); empty: any";

/** What a group's PCs must be: inside a center, room or computer folder, and holding a text. Both optional; none is every PC. */
const filterWith = (text: TString) =>
  Type.Object(
    {
      within: Type.Optional(
        Type.Object(
          {
            type: Type.Union([Type.Literal('center'), Type.Literal('room'), Type.Literal('folder')]),
            id: Type.Integer({ minimum: 1, description: "a center's or room's id, a computer folder's id as GET /scopes shows it" }),
          },
          { additionalProperties: false },
        ),
      ),
      text: Type.Optional(text),
    },
    { additionalProperties: false },
  );

/** The filter as a request sends it: its text one line of printable characters. */
export const GroupFilter = filterWith(Type.String({ maxLength: 100, format: 'line of text', description: textDescription }));
/** The filter as answers hold it. */
const StoredFilter = filterWith(Type.String({ description: textDescription }));

export const GroupBody = Type.Object({
  name: Name(100),
  filter: GroupFilter,
});

const GroupFields = {
  id: Type.Integer(),
  name: Type.String(),
  filter: StoredFilter,
};

export const GroupList = Type.Object({
  groups: Type.Array(
    Type.Object({
      ...GroupFields,
      count: Type.Integer({ description: 'how many PCs the filter finds now (a limited key: of those it may reach)' }),
    }),
  ),
});

export const GroupView = Type.Object({
  ...GroupFields,
  clients: Type.Array(Type.String(), { description: 'the addresses of the PCs the filter finds now (a limited key: those it may reach)' }),
});

export const Deleted = Type.Object({ id: Type.Integer() });
