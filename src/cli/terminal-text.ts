/**
 * Text from a server or a config file made safe for the terminal: escape sequences and
 * control characters cannot move the cursor, rewrite the screen, retitle the window or
 * hide a part of a URL.
 */
// CSI, OSC and the other string sequences (DCS, SOS, PM, APC), then any other ESC pair.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -~]?/g;
// C0 and C1 controls and DEL, and the bidirectional overrides that can make text read
// differently from what it is (a URL shown reversed).
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from a server or a config file, safe to print: escape sequences and control
 * characters removed, tabs as spaces, and cut at `limit` characters (a server could send
 * a megabyte of message). `multiline` keeps line breaks (a message's paragraphs); else
 * they become spaces.
 */
export function terminalSafe(text: string, options: { multiline?: boolean; limit?: number } = {}): string {
  const limit = options.limit ?? 500;
  const lines = text
    .replace(ESCAPES, '')
    .replace(/\r\n?/g, '\n')
    .replaceAll('\t', ' ')
    .split('\n')
    .map((line) => line.replace(CONTROLS, ''));
  const joined = options.multiline === true ? lines.join('\n') : lines.join(' ');
  const characters = [...joined.trim()];
  return characters.length > limit ? `${characters.slice(0, limit).join('')}…` : characters.join('');
}

