import { readFileSync } from 'node:fs'
import * as v from 'valibot'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  COMMON_PASSWORD_MESSAGE,
  commonPasswords,
  isCommonPassword,
} from '#domain/common-passwords.ts'
import { PasswordSchema, WizardPasswordSchema } from '#domain/fields.ts'
import { ResetPasswordPayloadSchema } from '#domain/reset-password.ts'
import { type ApiCall, postJson, readySignUp } from '#server/testing/api-journeys.ts'
import { useTestApp } from '#server/testing/suite.ts'
import { httpBackends } from '#server/testing/test-app.ts'

const LIST_FILE = 'server/data/common-passwords.txt'

function shippedList(): string[] {
  return readFileSync(LIST_FILE, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('# '))
}

describe('the common-password list', () => {
  it('ships a few thousand entries with their source, the same list the forms use', () => {
    const text = readFileSync(LIST_FILE, 'utf8')
    expect(text).toMatch(/^# .*@zxcvbn-ts\/language-common .*MIT/)
    const list = shippedList()
    expect(list.length).toBeGreaterThanOrEqual(3000)
    expect(list.slice(0, 3)).toEqual(['password', '12345678', '123456789'])
    // The forms' copy is sorted (it compresses better), the shipped file ranked.
    expect([...commonPasswords()]).toEqual([...list].sort())
  })

  it('matches whatever the letter case, and lets an uncommon password through', () => {
    expect(isCommonPassword('Password1')).toBe(true)
    expect(isCommonPassword('PASSWORD123')).toBe(true)
    expect(isCommonPassword('Passw0rd')).toBe(true)
    expect(isCommonPassword('Glow2Rewards-Teal')).toBe(false)
  })

  it('is refused by every rule for a new password, with a clear message', () => {
    const message = (schema: v.GenericSchema, value: unknown) =>
      v.safeParse(schema, value).issues?.map((issue) => issue.message)
    expect(message(WizardPasswordSchema, 'Password1')).toEqual([COMMON_PASSWORD_MESSAGE])
    expect(message(PasswordSchema, 'Qwerty123')).toEqual([COMMON_PASSWORD_MESSAGE])
    expect(
      message(ResetPasswordPayloadSchema, {
        password: 'baseball',
        passwordConfirmation: 'baseball',
        code: 'x'.repeat(43),
      }),
    ).toEqual([COMMON_PASSWORD_MESSAGE])
    expect(COMMON_PASSWORD_MESSAGE).toBe(
      'This password is too common. Please choose a less predictable one.',
    )
  })
})

describe.each(httpBackends())('the API refuses common passwords on $name', (backend) => {
  const t = useTestApp(backend)
  let call: ApiCall
  beforeAll(async () => {
    call = (path, init) => Promise.resolve(t.app.request(path, init))
  })

  async function expectCommon(response: Response) {
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error: { message: string } }
    expect(body.error.message).toContain(COMMON_PASSWORD_MESSAGE)
  }

  it('on sign-up, reset and personnel registration, before anything is used up', async () => {
    const payload = await readySignUp(call, 8_000_000 + Math.floor(Math.random() * 999_999))
    await expectCommon(
      await postJson(call, '/api/auth/local/register', {
        ...payload,
        password: 'Password1',
        password_confirm: 'Password1',
      }),
    )
    // The verified phone and the payment were not spent: the same sign-up with a better password works.
    expect((await postJson(call, '/api/auth/local/register', payload)).status).toBe(200)

    await expectCommon(
      await postJson(call, '/api/auth/reset-password', {
        password: 'Superman1',
        passwordConfirmation: 'Superman1',
        code: 'a'.repeat(43),
      }),
    )
    await expectCommon(
      await postJson(call, '/api/auth/personnel/register', {
        id: 'a'.repeat(43),
        title: '',
        first_name: 'Ivy',
        last_name: 'Vited',
        cell_phone: '5550101234',
        country_code: '+1',
        password: 'Trustno1',
        password_confirm: 'Trustno1',
        authyId: 'b'.repeat(43),
      }),
    )
  })
})
