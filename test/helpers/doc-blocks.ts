// The shell blocks of a Markdown page, for the tests that run a page verbatim (README.md,
// docs/firmware.md): each ```sh / ```bash / ```shell block in order, with the line it starts on,
// whether it lies between `<!-- <marker>:start -->` and `<!-- <marker>:end -->`, and the reason it
// is not run when the paragraph just above it says `*Not run by the README test: <why>.*`.

export interface DocBlock {
  line: number;
  text: string;
  /** between the page's markers */
  marked: boolean;
  notRun?: string;
}

const NOT_RUN = /^\*Not run by the README test: ([\s\S]+?)\*\s*$/;

export function docBlocks(page: string, marker = 'quickstart'): DocBlock[] {
  const start = page.indexOf(`<!-- ${marker}:start -->`);
  const end = page.indexOf(`<!-- ${marker}:end -->`);
  return [...page.matchAll(/^```(sh|bash|shell)\n([\s\S]*?)^```$/gm)].map((m) => {
    const before = page.slice(0, m.index).trimEnd();
    // the paragraph just above the block
    const above = before.slice(before.lastIndexOf('\n\n') + 2);
    const note = NOT_RUN.exec(above);
    return {
      line: page.slice(0, m.index).split('\n').length,
      text: m[2],
      marked: start >= 0 && m.index > start && m.index < end,
      ...(note ? { notRun: note[1].replace(/\s+/g, ' ') } : {}),
    };
  });
}
