import { get } from '../api';
import type { JobDetail } from '../types';

/** GET /jobs/<id> page after page (the jobs plugin answers a big job's PCs 500 at a time): the job with all its PCs. */
export async function getWholeJob(id: string | number): Promise<JobDetail> {
  const url = `/jobs/${encodeURIComponent(id)}`;
  const job = await get<JobDetail>(url);
  for (let next = job.next; next !== null; ) {
    const page = await get<JobDetail>(`${url}?after=${next}`);
    job.clients.push(...page.clients);
    next = page.next;
  }
  return { ...job, next: null };
}
