// What a terminal would act on rather than print: C0 controls but tab and newline (ESC starts colour,
// cursor and title sequences; CR overwrites the line), DEL, the C1 controls (U+009B is a one-byte
// CSI to some terminals), and the bidirectional overrides and isolates that reorder what is shown.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is what this is for
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from input (an artifact name, a message quoting a value, a file name) made safe to print on
 * a terminal: each control character becomes its visible `\u001b` spelling, so escape bytes in a
 * stack show as text instead of recolouring, moving or retitling the terminal. Also valid inside a
 * JSON string, where it denotes the same character.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
