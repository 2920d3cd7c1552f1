import { ApiError } from '../api';
import { t } from '../i18n';
import { problemSentence } from '../sentences';

/** An API error as a sentence: a 403 says what is not allowed, a refused field what to type instead. */
export function ErrorNote(props: { error: unknown }) {
  if (!props.error) return null;
  const error = props.error as Error;
  const text =
    error instanceof ApiError && error.status === 403
      ? t('forbidden', { message: error.message })
      : error instanceof ApiError && error.status === 0
        ? t('unreachable', { message: error.message })
        : error instanceof ApiError
          ? problemSentence(error)
          : error.message;
  return (
    <p class="error-note" role="alert">
      {text}
    </p>
  );
}
