/**
 * Renames schemas in the SQL that `pg_restore -f -` prints, line by line, so a backup of one stack's schemas restores
 * into schemas of other names (another stack on the same database, a test). No I/O here.
 *
 * Only what names a schema is rewritten: a schema-qualified name (`src.table`, `'src.seq'::regclass`), and the schema
 * statements (`CREATE SCHEMA src;`, `ALTER SCHEMA src …`, `COMMENT ON SCHEMA src …`, `SET search_path = src, …`).
 * The rows of a `COPY … FROM stdin;` block are data and pass unchanged: a description mentioning a schema stays as it was.
 */
export class SchemaRenamer {
  private inCopy = false;
  private readonly qualified: RegExp | undefined;
  private readonly statement: RegExp | undefined;

  constructor(private readonly renames: ReadonlyMap<string, string>) {
    const names = [...renames].filter(([from, to]) => from !== to).map(([from]) => from);
    for (const n of names) if (!/^[a-z_][a-z0-9_]*$/.test(n)) throw new Error(`not a plain schema name: ${n}`);
    if (names.length) {
      const alt = names.sort((a, b) => b.length - a.length).join('|');
      // Not after an identifier character, a quote-less dot or `$`: `x.src.t` or `my_src.t` are not this schema.
      this.qualified = new RegExp(`(?<![A-Za-z0-9_$."])(${alt})(?=\\.)`, 'g');
      this.statement = new RegExp(`^((?:CREATE|ALTER|DROP) SCHEMA (?:IF (?:NOT )?EXISTS )?|COMMENT ON SCHEMA |SET search_path = )(${alt})(?=[;, ]|$)`);
    }
  }

  /** One line of the SQL (without its newline), renamed. */
  line(text: string): string {
    if (this.inCopy) {
      if (text === '\\.') this.inCopy = false;
      return text;
    }
    if (/^COPY .* FROM stdin;$/.test(text)) this.inCopy = true;
    if (!this.qualified || !this.statement) return text;
    const to = (name: string) => this.renames.get(name) ?? name;
    return text.replace(this.statement, (_m, head: string, name: string) => `${head}${to(name)}`).replace(this.qualified, (name: string) => to(name));
  }
}
