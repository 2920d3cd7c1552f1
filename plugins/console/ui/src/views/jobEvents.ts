import { useEffect, useRef, useState } from 'preact/hooks';
import { readServerEvents, type ServerEvent } from '../events';

/** How long after the stream broke it is asked for again; the page polls meanwhile. */
const reopenMs = 5000;

/** What `job.client` says of one PC of a job (the jobs plugin's README, Events). */
export interface JobClientEvent {
  job: number;
  client: string;
  state: string;
  status: number | null;
  outcome: string;
  /** The exit code the agent reported (a script's), when it reported one. */
  code?: number;
}

/**
 * Follows the jobs' events (`job.*`) while the page is shown and hands each to `onEvent`.
 * Answers whether the stream is open: while it is not (no events plugin, a broken stream) the
 * page polls instead. `onOpen` runs each time it opens, so the page reads what it missed.
 */
export function useJobEvents(onEvent: (event: ServerEvent) => void, onOpen: () => void): boolean {
  const [open, setOpen] = useState(false);
  const handlers = useRef({ onEvent, onOpen });
  handlers.current = { onEvent, onOpen };
  useEffect(() => {
    const aborter = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const follow = async (): Promise<void> => {
      try {
        await readServerEvents(
          { types: 'job.*' },
          (event) => handlers.current.onEvent(event),
          () => {
            setOpen(true);
            handlers.current.onOpen();
          },
          aborter.signal,
        );
      } catch {
        // Not opened: the page polls.
      }
      if (aborter.signal.aborted) return;
      setOpen(false);
      timer = setTimeout(() => void follow(), reopenMs);
    };
    void follow();
    return () => {
      aborter.abort();
      clearTimeout(timer);
    };
  }, []);
  return open;
}
