// A DATABASE_URL that cannot be opened is one line naming what to fix, from real connection
// attempts (no mocks): a URL that is not PostgreSQL's, an unknown host, a closed port, and (on a
// PostgreSQL the suite has) a missing database and an unknown user.
import { describe, expect, it } from 'vitest';
import { openPlatform } from './open-platform.ts';

const opened = (databaseUrl: string) =>
  openPlatform({ databaseUrl }).then(
    async (p) => {
      await p.close();
      return 'opened';
    },
    (e: Error) => e.message,
  );

describe('DATABASE_URL errors', () => {
  it.each([
    ['not a url', /^cannot open PostgreSQL: DATABASE_URL is not a PostgreSQL URL: write it as postgres:\/\/user:password@host:5432\/database$/],
    ['mysql://u@127.0.0.1/x', /DATABASE_URL is not a PostgreSQL URL/],
    ['postgres://u@127.0.0.1:notaport/x', /DATABASE_URL is not a PostgreSQL URL/],
    ['postgres://u@127.0.0.1:1/x', /: nothing accepts connections at 127\.0\.0\.1:1: start PostgreSQL there, or fix the host and port in DATABASE_URL$/],
    ['postgres://u@no-such-host.invalid/x', /: host "no-such-host\.invalid" was not found \(its name does not resolve\): fix the host in DATABASE_URL$/],
  ])('%s', async (url, message) => {
    const m = await opened(url);
    expect(m).toMatch(message);
    expect(m.split('\n')).toHaveLength(1);
  });

  it.runIf(process.env.DATABASE_URL)('a missing database, an unknown user (PostgreSQL)', async () => {
    const base = new URL(process.env.DATABASE_URL!);
    const missing = new URL(base);
    missing.pathname = '/bvl_no_such_database';
    expect(await opened(missing.toString())).toMatch(
      /: database "bvl_no_such_database" does not exist at .+: create it \(createdb -h .+ bvl_no_such_database\) or fix the database name at the end of DATABASE_URL$/,
    );
    const stranger = new URL(base);
    stranger.username = 'bvl_no_such_user';
    expect(await opened(stranger.toString())).toMatch(/: PostgreSQL at .+ refused user "bvl_no_such_user" \(.+\): fix the user in DATABASE_URL/);
  });
});
