// The start-up open-file report (docs/operations.md#open-files): the /proc/self/limits line parsed,
// the device room it leaves, and a warning only under 65,536.
import { describe, expect, it } from 'vitest';
import { OPEN_FILES_RESERVE, openFilesReport, parseOpenFileLimit } from '../../../src/config/open-files.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('open-file limit', () => {
  it('parses the soft and hard limit, and unlimited as null', () => {
    expect(parseOpenFileLimit(LIMITS)).toEqual({ soft: 1024, hard: 524288 });
    expect(parseOpenFileLimit('Max open files            unlimited            unlimited            files')).toEqual({ soft: null, hard: null });
    expect(parseOpenFileLimit('Max cpu time unlimited unlimited seconds')).toBeUndefined();
  });

  it('warns under 65,536 with the room left and how to raise it', () => {
    const r = openFilesReport({ soft: 4096, hard: 524288 });
    expect(r.info).toContain(`about ${(4096 - OPEN_FILES_RESERVE).toLocaleString('en-US')} device connections`);
    expect(r.warn).toMatch(/under 65,536/);
    expect(r.warn).toMatch(/LimitNOFILE/);
    expect(r.warn).toMatch(/--ulimit nofile/);
    expect(r.warn).toMatch(/hard limit allows 524,288/);
  });

  it('says the hard limit must rise too when the soft one is already at it', () => {
    expect(openFilesReport({ soft: 1024, hard: 1024 }).warn).toMatch(/and the hard limit/);
  });

  it('does not warn at 65,536 and above, nor when unlimited', () => {
    const r = openFilesReport({ soft: 65_536, hard: 65_536 });
    expect(r.info).toContain(`about ${(65_536 - OPEN_FILES_RESERVE).toLocaleString('en-US')} device connections`);
    expect(r.warn).toBeUndefined();
    expect(openFilesReport({ soft: null, hard: null }).warn).toBeUndefined();
  });

  it('never reports a negative room', () => {
    expect(openFilesReport({ soft: 256, hard: 256 }).info).toContain('about 0 device connections');
  });
});
