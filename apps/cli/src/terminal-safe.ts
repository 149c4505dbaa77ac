import { terminalText } from '@bvl/build-issue';
import { type CliIo, wantsColor } from './cli-io.ts';

// bvl's own terminal sequences: on standard output the colours pretty output paints (only when it
// paints them); on standard error a progress line's rewrite (a carriage return and erase-line at its
// start, or erase-line at its end). Every other control character is spelled out (terminalText),
// input's colour codes included.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is what this is for
const COLOURS = /\u001b\[(?:0|1|2|4|31|32|33|36|31;1|33;1)m/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is what this is for
const PROGRESS = /^\r(?:\u001b\[K)?|\u001b\[K$/g;

/** Text for a terminal (or a file a terminal may print): the sequences `own` matches kept, every other control spelled out. */
export function terminalSafe(text: string, own?: RegExp): string {
  if (!own) return terminalText(text);
  let out = '';
  let at = 0;
  for (const m of text.matchAll(own)) {
    out += terminalText(text.slice(at, m.index)) + m[0];
    at = m.index + m[0].length;
  }
  return out + terminalText(text.slice(at));
}

/**
 * The io every command gets: what it writes to stdout and stderr passes {@link terminalSafe}, so
 * an escape byte in an artifact name, a message, a file name or an error never reaches the
 * terminal raw, whichever command printed it. JSON stays valid (its strings hold no raw control
 * character but DEL, C1 and bidi controls, whose spelled-out form is the same JSON string).
 */
export function terminalSafeIo(io: CliIo): CliIo {
  const colours = wantsColor(io.env, io.isTty) ? COLOURS : undefined;
  return { ...io, stdout: (t) => io.stdout(terminalSafe(t, colours)), stderr: (t) => io.stderr(terminalSafe(t, PROGRESS)) };
}
