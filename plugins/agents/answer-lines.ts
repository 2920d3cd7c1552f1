import { AnswerError } from './configuration';

/**
 * The longest line of an inventory answer: a component's description or a package's name
 * and version, a few hundred characters at most.
 */
const maxLineLength = 1024;

/**
 * The lines of an inventory text (hardware, software), each without the CR before its LF,
 * read one at a time: a text of millions of lines, or one line of megabytes, is refused once
 * the caller has read what its limits allow, without splitting all of it first.
 */
export function* answerLines(text: string): Generator<string> {
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end - start > maxLineLength) throw new AnswerError(`a line of more than ${maxLineLength} characters`);
    yield text.slice(start, text[end - 1] === '\r' ? end - 1 : end);
    start = end + 1;
  }
}
