import { ErrorNote } from '../components/ErrorNote';
import { t } from '../i18n';
import { TableScroll } from '../components/TableScroll';

type Step = { command: string } | { procedure: number } | { task: number };

interface ProcedureRow {
  id: number;
  center: number;
  name: string;
  steps: Step[];
}

interface TaskRow extends ProcedureRow {
  scope: { type: string; id: number } | null;
}

export interface Catalogue {
  procedures: ProcedureRow[];
  tasks: TaskRow[];
}

const stepText = (step: Step) =>
  'command' in step
    ? step.command
    : 'procedure' in step
      ? `${t('scheduler.procedure')} ${step.procedure}`
      : `${t('scheduler.task')} ${step.task}`;

/** One table of procedures or tasks: id, name, center, [scope,] steps; each row marked `data-<kind>` with its id. */
function CatalogueTable(props: {
  title: string;
  kind: 'procedure' | 'task';
  rows: (ProcedureRow & Partial<TaskRow>)[];
  centerName(id: number): string;
}) {
  const scoped = props.kind === 'task';
  return (
    <>
      <h2>{props.title}</h2>
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">{t('field.name')}</th>
              <th scope="col">{t('kind.center')}</th>
              {scoped && <th scope="col">{t('scheduler.scopeType')}</th>}
              <th scope="col">{t('scheduler.stepList')}</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <tr key={row.id} {...{ [`data-${props.kind}`]: row.id }}>
                <td>{row.id}</td>
                <td>{row.name}</td>
                <td>{props.centerName(row.center)}</td>
                {scoped && <td>{row.scope ? `${row.scope.type} ${row.scope.id}` : ''}</td>}
                <td>{row.steps.map(stepText).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </>
  );
}

/** The procedures and tasks the scheduler holds, with their ids (what the forms below ask for). */
export function SchedulerCatalogue(props: { catalogue?: Catalogue; error?: unknown; centerName(id: number): string }) {
  return (
    <>
      <ErrorNote error={props.error} />
      <CatalogueTable
        title={t('scheduler.procedures')}
        kind="procedure"
        rows={props.catalogue?.procedures ?? []}
        centerName={props.centerName}
      />
      <CatalogueTable title={t('scheduler.tasks')} kind="task" rows={props.catalogue?.tasks ?? []} centerName={props.centerName} />
    </>
  );
}
