import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';

const WHAT: Record<ReturnType<typeof printParseErrorCode>, string> = {
  InvalidSymbol: 'an unexpected character',
  InvalidNumberFormat: 'a malformed number',
  PropertyNameExpected: 'a property name was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: 'a colon was expected',
  CommaExpected: 'a comma was expected',
  CloseBraceExpected: 'a closing brace was expected',
  CloseBracketExpected: 'a closing bracket was expected',
  EndOfFileExpected: 'the end of the file was expected (something follows the JSON value)',
  InvalidCommentToken: 'a comment (JSON has none)',
  UnexpectedEndOfComment: 'an unterminated comment',
  UnexpectedEndOfString: 'an unterminated string',
  UnexpectedEndOfNumber: 'an unterminated number',
  InvalidUnicode: 'a malformed \\u escape',
  InvalidEscapeCharacter: 'a malformed escape',
  InvalidCharacter: 'a control character inside a string',
  '<unknown ParseErrorCode>': 'a syntax error',
};

/**
 * Why and where `text` is not JSON — "a value was expected at line 3, column 7" — without quoting
 * any of it: JSON.parse's own message repeats the text around the error, and a message must never
 * echo a file's content (bvl mcp answers an agent that may have named a file it should not see;
 * a terminal would interpret the escape bytes such a file holds).
 */
export function describeJsonSyntaxError(text: string): string {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  // jsonc-parser accepts a little JSON.parse does not (and vice versa): then say no more than that.
  if (!first) return 'it does not parse';
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < first.offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `${WHAT[printParseErrorCode(first.error)]} at line ${line}, column ${first.offset - lineStart + 1}`;
}
