import type { Database } from '../../core/database';

/** Insert many rows fast: multi-row inserts of `chunk` rows, in one transaction. */
export async function bulkInsert(db: Database, table: string, columns: string[], rows: unknown[][], chunk = 500): Promise<void> {
  await db.transactional(async (em) => {
    for (let i = 0; i < rows.length; i += chunk) {
      const part = rows.slice(i, i + chunk);
      const values = part.map(() => `(${columns.map(() => '?').join(',')})`).join(',');
      await em
        .getConnection()
        .execute(`insert into ${table} (${columns.join(',')}) values ${values}`, part.flat(), 'run', em.getTransactionContext());
    }
  });
}

/** The n-th address of 10.0.0.0/8, for tests that need thousands of distinct clients. */
export function ipFor(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}
