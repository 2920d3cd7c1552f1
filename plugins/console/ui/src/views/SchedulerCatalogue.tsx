import { ErrorNote } from '../components/ErrorNote';
import { TableScroll } from '../components/TableScroll';
import type { TreeModel } from '../fleet/tree';
import { t } from '../i18n';
import { type Scope, scopeName } from './scheduler/targets';

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

/** One table of procedures or tasks: name, center, [scope,] steps by name; each row marked `data-<kind>` with its id. */
function CatalogueTable(props: {
  title: string;
  kind: 'procedure' | 'task';
  rows: (ProcedureRow & Partial<TaskRow>)[];
  centerName(id: number): string;
  scopeName(scope: Scope | null): string;
  stepText(step: Step): string;
}) {
  const scoped = props.kind === 'task';
  return (
    <>
      <h2>{props.title}</h2>
      <TableScroll>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">{t('field.name')}</th>
              <th scope="col">{t('kind.center')}</th>
              {scoped && <th scope="col">{t('scheduler.on')}</th>}
              <th scope="col">{t('scheduler.stepList')}</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <tr key={row.id} {...{ [`data-${props.kind}`]: row.id }}>
                <td>{row.name}</td>
                <td>{props.centerName(row.center)}</td>
                {scoped && <td>{props.scopeName((row.scope as Scope | null | undefined) ?? null)}</td>}
                <td>{row.steps.map(props.stepText).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </>
  );
}

/** The procedures and tasks the scheduler holds, by name, with where tasks run. */
export function SchedulerCatalogue(props: {
  catalogue?: Catalogue;
  error?: unknown;
  model: TreeModel | null;
  centerName(id: number): string;
}) {
  const nameOf = (rows: ProcedureRow[] | undefined, id: number) => rows?.find((row) => row.id === id)?.name ?? String(id);
  const stepText = (step: Step) =>
    'command' in step
      ? step.command
      : 'procedure' in step
        ? nameOf(props.catalogue?.procedures, step.procedure)
        : `${t('scheduler.taskLabel')} ${nameOf(props.catalogue?.tasks, step.task)}`;
  const common = { centerName: props.centerName, scopeName: (scope: Scope | null) => scopeName(props.model, scope), stepText };
  return (
    <>
      <ErrorNote error={props.error} />
      <CatalogueTable title={t('scheduler.procedures')} kind="procedure" rows={props.catalogue?.procedures ?? []} {...common} />
      <CatalogueTable title={t('scheduler.tasks')} kind="task" rows={props.catalogue?.tasks ?? []} {...common} />
    </>
  );
}
