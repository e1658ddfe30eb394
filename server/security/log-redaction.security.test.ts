/**
 * A database failure never puts the request's values in the log. The disk
 * cannot be filled here (no small file system to mount), so the database itself answers as a
 * full disk does: a trigger raises SQLSTATE 53100 ("could not extend file ... No space left on
 * device") on the insert. The driver's error is then the real one, with drizzle's
 * "Failed query: ... params: ..." message around it, which is what used to reach the log.
 */
import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '#server/testing/suite.ts'
import { httpBackends } from '#server/testing/test-app.ts'

const PATIENT = {
  first_name: 'Zelda',
  last_name: 'Quarrington',
  email: 'zelda.quarrington@example.org',
  phone: '+15550107733',
}

describe.each(httpBackends())('database failures in the log on $name', (backend) => {
  const t = useTestApp(backend)

  beforeAll(async () => {
    await t.db.execute(
      sql.raw(`create or replace function disk_full() returns trigger language plpgsql as $$
        begin
          raise exception 'could not extend file "base/16384/2619": No space left on device'
            using errcode = '53100', detail = format('Failing row contains (%s, %s, %s).',
              new.first_name, new.last_name, new.email);
        end $$`),
    )
    await t.db.execute(
      sql.raw(
        'create trigger disk_full before insert on patients for each row execute function disk_full()',
      ),
    )
  })

  it('logs the failure by SQLSTATE, constraint and route, and no value of the request', async () => {
    const response = await t.request('/api/patients', {
      method: 'POST',
      token: t.demo.adminToken,
      json: PATIENT,
    })
    expect(response.status).toBe(500)
    const answer = await response.text()

    const written = t.log.raw.join('')
    // What the log says: the route's pattern, the database's code, nothing else about the row.
    expect(t.log.records).toContainEqual(
      expect.objectContaining({
        level: 50,
        msg: 'Unhandled error on POST /api/patients',
        route: 'POST /api/patients',
        failure: { type: 'DatabaseError', state: '53100', constraint: null },
      }),
    )
    for (const value of [
      ...Object.values(PATIENT),
      '5550107733',
      'zelda',
      'Quarrington',
      'Failed query',
      'insert into',
      'params',
      'No space left',
    ]) {
      expect(written.toLowerCase(), value).not.toContain(value.toLowerCase())
      expect(answer.toLowerCase(), value).not.toContain(value.toLowerCase())
    }
    // Nor an unsubscribe token (random, 128 bits or more: long hex or base64url runs).
    expect(written).not.toMatch(/[A-Za-z0-9_-]{22,}/)
  })
})
