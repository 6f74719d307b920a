// The rows a project names by a text id (device classes, modules, data sources): one contract for
// reading and deleting them, whichever repository holds them.

export interface ProjectKeyedRepo<R> {
  get(projectId: number, id: string): Promise<R | undefined>;
  /** every row of the project, by id */
  list(projectId: number): Promise<R[]>;
  /** false when the project has no row with that id */
  delete(projectId: number, id: string): Promise<boolean>;
}
