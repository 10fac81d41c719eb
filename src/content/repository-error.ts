// The repository's one error type: a client mistake with the HTTP status it answers (Alfresco's
// error body at the edge, an error page in the share UI).

export class RepositoryError extends Error {
  readonly status: number;
  readonly headers: Record<string, string> | undefined;
  constructor(status: number, message: string, headers?: Record<string, string>) {
    super(message);
    this.name = 'RepositoryError';
    this.status = status;
    this.headers = headers;
  }
}
