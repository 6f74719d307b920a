// The shape every report source (rows-*.ts) produces and rows.ts picks from: kept apart from
// rows.ts so the sources need not import the file that imports them.
export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;

export interface ReportTable {
  columns: readonly string[];
  rows: AsyncIterable<Row>;
}

export interface Window {
  since: string;
  until: string;
}

export const PAGE = 500;
