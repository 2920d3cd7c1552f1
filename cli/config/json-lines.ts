/**
 * Where things are in a JSON text, for messages a person can act on in an editor: the line
 * and column of the first syntax error, and the line of each key. Node 20's JSON.parse
 * gives a character position at best (often only a quote of the text), and no lines.
 * Values come from JSON.parse; this only follows the grammar to say where.
 */

export interface JsonSyntaxError {
  line: number;
  column: number;
  /** What is wrong there: `expected ',' or '}' after a value`. */
  problem: string;
}

/**
 * The line of each key and list item of a JSON text, named as config errors name them
 * (`rest.port`, `plugins[2]`; a key written twice has the line of the last, the one
 * JSON.parse keeps), or where its first syntax error is.
 */
export function scanJson(text: string): { lines: Map<string, number> } | { error: JsonSyntaxError } {
  const scanner = new Scanner(text);
  try {
    scanner.document();
    return { lines: scanner.lines };
  } catch (error) {
    if (!(error instanceof ScanError)) throw error;
    return { error: { ...lineAndColumn(text, error.at), problem: error.problem } };
  }
}

class ScanError extends Error {
  constructor(
    readonly at: number,
    readonly problem: string,
  ) {
    super(problem);
  }
}

const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const escapes = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
/** Sections and lists nested deeper are refused: the scan recurses, and a config nests a few. */
const maxDepth = 64;

class Scanner {
  readonly lines = new Map<string, number>();
  private at = 0;
  /** Line breaks of valid JSON are all in whitespace: counting them there keeps the line. */
  private line = 1;

  constructor(private readonly text: string) {}

  document(): void {
    this.value('', 0);
    this.space();
    if (this.at < this.text.length) this.fail('more after the end of the JSON value');
  }

  private value(key: string, depth: number): void {
    this.space();
    const c = this.text[this.at];
    if ((c === '{' || c === '[') && depth === maxDepth) this.fail(`sections and lists nest more than ${maxDepth} deep here`);
    if (c === '{') this.object(key, depth + 1);
    else if (c === '[') this.array(key, depth + 1);
    else if (c === '"') this.string();
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) this.number();
    else if (this.text.startsWith('true', this.at)) this.at += 4;
    else if (this.text.startsWith('false', this.at)) this.at += 5;
    else if (this.text.startsWith('null', this.at)) this.at += 4;
    else if (c === undefined) this.fail('the text ends where a value should be');
    else if (c === "'") this.fail('strings take double quotes');
    else this.fail('expected a value (a string in double quotes, a number, true, false, null, a list or a section)');
  }

  private object(key: string, depth: number): void {
    this.at++;
    this.space();
    if (this.text[this.at] === '}') {
      this.at++;
      return;
    }
    for (let comma = -1; ; comma = this.at - 1) {
      this.space();
      const c = this.text[this.at];
      if (c === '}') this.fail("a comma before '}' (JSON allows none after the last key)", comma);
      if (c !== '"') this.fail(c === undefined ? "the text ends inside a section: '}' is missing" : 'expected a key in double quotes');
      const line = this.line;
      const name = this.string();
      const named = key ? `${key}.${name}` : name;
      this.lines.set(named, line);
      this.space();
      if (this.text[this.at] !== ':') this.fail("expected ':' after the key");
      this.at++;
      this.value(named, depth);
      this.space();
      const next = this.text[this.at];
      if (next === undefined) this.fail("the text ends inside a section: '}' is missing");
      this.at++;
      if (next === '}') return;
      if (next !== ',') this.fail("expected ',' or '}' after a value", this.at - 1);
    }
  }

  private array(key: string, depth: number): void {
    this.at++;
    this.space();
    if (this.text[this.at] === ']') {
      this.at++;
      return;
    }
    for (let index = 0, comma = -1; ; index++, comma = this.at - 1) {
      this.space();
      if (this.text[this.at] === ']') this.fail("a comma before ']' (JSON allows none after the last item)", comma);
      this.lines.set(`${key}[${index}]`, this.line);
      this.value(`${key}[${index}]`, depth);
      this.space();
      const next = this.text[this.at];
      if (next === undefined) this.fail("the text ends inside a list: ']' is missing");
      this.at++;
      if (next === ']') return;
      if (next !== ',') this.fail("expected ',' or ']' after an item", this.at - 1);
    }
  }

  /** A string; answers its value (keys are looked up by it). */
  private string(): string {
    const start = this.at++;
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined || c === '\n') this.fail('a string is not closed', start);
      if (c === '"') break;
      if (c === '\\') {
        const escaped = this.text[this.at + 1];
        if (escaped === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.at + 2, this.at + 6))) this.fail('\\u takes four hexadecimal digits');
          this.at += 6;
        } else if (escaped !== undefined && escapes.has(escaped)) this.at += 2;
        else this.fail(`'\\${escaped ?? ''}' is not an escape JSON knows (a backslash is written \\\\)`);
        continue;
      }
      if (c < ' ') this.fail('a control character inside a string (write it escaped, as \\t)');
      this.at++;
    }
    this.at++;
    return JSON.parse(this.text.slice(start, this.at)) as string;
  }

  private number(): void {
    numberPattern.lastIndex = this.at;
    const match = numberPattern.exec(this.text);
    if (!match) this.fail('not a valid number');
    this.at += match[0].length;
  }

  private space(): void {
    for (;;) {
      const c = this.text[this.at];
      if (c === '\n') this.line++;
      else if (c !== ' ' && c !== '\t' && c !== '\r') return;
      this.at++;
    }
  }

  private fail(problem: string, at = this.at): never {
    throw new ScanError(at, problem);
  }
}

function lineAndColumn(text: string, at: number): { line: number; column: number } {
  const before = text.slice(0, at);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: at - lineStart + 1 };
}
