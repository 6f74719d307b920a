// The general log's lines on devices in no home (docs/concepts.md#homes), by the class itself with a
// long interval: the first device's line at once, the others' summary written when it closes (as at
// shutdown), one line per project, a count past the ids it names.
import { describe, expect, it } from 'vitest';
import { HomelessSummary, SUMMARY_IDS, type HomelessLine } from '../../../src/domain/log/homeless.js';

const HOUR = 3_600_000;

describe('HomelessSummary', () => {
  it('names the first device at once, and counts each other device once in one line per project', async () => {
    const lines: HomelessLine[] = [];
    const s = new HomelessSummary(HOUR, async (l) => void lines.push(l));
    await s.note(1, 10, 'x');
    await s.note(1, 10, 'y');
    expect(lines).toEqual([{ projectId: 1, text: expect.stringMatching(/^device 10 is in no home: its events \(e\.g\. x\)/) }]);
    for (let id = 11; id <= 18; id++) {
      await s.note(1, id, 'x');
      await s.note(1, id, 'x');
    }
    await s.note(2, 30, 'z');
    expect(lines).toHaveLength(2);
    expect(lines[1].text).toMatch(/^device 30 is in no home/);

    await s.close();
    expect(lines).toHaveLength(3);
    expect(lines[2].projectId).toBe(1);
    expect(lines[2].text).toMatch(/^8 devices in no home sent events in the last hour: 11, 12, 13, 14, 15 and 3 more\. /);
    expect(SUMMARY_IDS).toBe(5);
  });

  it('writes no summary for an interval in which only the first device sent', async () => {
    const lines: HomelessLine[] = [];
    const s = new HomelessSummary(HOUR, async (l) => void lines.push(l));
    await s.note(1, 10, 'x');
    await s.note(1, 10, 'x');
    await s.close();
    expect(lines.map((l) => l.text.split(':')[0])).toEqual(['device 10 is in no home']);
  });
});
