import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from './config.ts'

let cwd: string
beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'glow-config-'))
})
afterAll(() => rmSync(cwd, { recursive: true, force: true }))

describe('loadConfig', () => {
  it('has the defaults of .env.example', () => {
    expect(loadConfig({}, { cwd })).toEqual({
      port: 3000,
      host: '0.0.0.0',
      dataDir: join(cwd, '.data'),
      databaseUrl: undefined,
      databaseOwnerUrl: undefined,
      publicUrl: 'http://localhost:3000',
      allowedOrigins: ['http://localhost:3000'],
      production: false,
      jwtSecret: undefined,
      dataKey: undefined,
      distDir: undefined,
      hcaptchaSiteKey: undefined,
      supportEmail: undefined,
      smtpUrl: undefined,
      mailFrom: 'Glow Rewards <no-reply@glowrewards.example>',
      twilio: undefined,
      trustProxy: false,
      seedDemo: true,
      stripeSecretKey: undefined,
      stripeWebhookSecret: undefined,
      allowTestPayments: false,
      nextechSyncMinutes: 5,
      billingRunMinutes: 15,
    })
  })

  it('treats empty values copied from .env.example as unset', () => {
    const config = loadConfig(
      {
        DATABASE_URL: '',
        JWT_SECRET: '',
        PUBLIC_URL: '',
        SMTP_URL: '',
        MAIL_FROM: '',
        TWILIO_ACCOUNT_SID: '',
        TWILIO_AUTH_TOKEN: '',
        TWILIO_FROM: '',
        DATA_DIR: '',
      },
      { cwd },
    )
    expect(config.databaseUrl).toBeUndefined()
    expect(config.smtpUrl).toBeUndefined()
    expect(config.mailFrom).toBe('Glow Rewards <no-reply@glowrewards.example>')
    expect(config.twilio).toBeUndefined()
    expect(config.jwtSecret).toBeUndefined()
    expect(config.publicUrl).toBe('http://localhost:3000')
    expect(config.dataDir).toBe(join(cwd, '.data'))
  })

  it('reads every variable', () => {
    const config = loadConfig(
      {
        PORT: '4000',
        HOST: '127.0.0.1',
        DATA_DIR: 'memory',
        DATABASE_URL: 'postgres://u:p@db:5432/glow',
        PUBLIC_URL: 'https://app.example.com/',
        ALLOWED_ORIGINS: 'http://localhost:5173, https://staging.example.com/path',
        NODE_ENV: 'production',
        JWT_SECRET: 'x'.repeat(32),
        DATA_ENCRYPTION_KEY: 'ab'.repeat(32),
        SERVE_DIST: 'build',
        HCAPTCHA_SITEKEY: '10000000-ffff-ffff-ffff-000000000001',
        SUPPORT_EMAIL: ' help@clinic-group.example ',
        SMTP_URL: 'smtps://user%40example.com:p%40ss@mail.example.com:465',
        MAIL_FROM: 'Clinic <hello@clinic.example>',
        TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef',
        TWILIO_AUTH_TOKEN: 'token',
        TWILIO_FROM: '+15550100100',
        TRUST_PROXY: 'true',
        SEED_DEMO: 'true',
        STRIPE_SECRET_KEY: 'sk_test_0123456789',
        ALLOW_TEST_PAYMENTS: 'false',
      },
      { cwd },
    )
    expect(config).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      dataDir: 'memory',
      databaseUrl: 'postgres://u:p@db:5432/glow',
      publicUrl: 'https://app.example.com',
      allowedOrigins: [
        'https://app.example.com',
        'http://localhost:5173',
        'https://staging.example.com',
      ],
      production: true,
      jwtSecret: 'x'.repeat(32),
      distDir: join(cwd, 'build'),
      hcaptchaSiteKey: '10000000-ffff-ffff-ffff-000000000001',
      supportEmail: 'help@clinic-group.example',
      smtpUrl: 'smtps://user%40example.com:p%40ss@mail.example.com:465',
      mailFrom: 'Clinic <hello@clinic.example>',
      twilio: {
        accountSid: 'AC0123456789abcdef0123456789abcdef',
        authToken: 'token',
        from: '+15550100100',
      },
      trustProxy: true,
      seedDemo: true,
      stripeSecretKey: 'sk_test_0123456789',
      allowTestPayments: false,
    })
  })

  describe('production defaults', () => {
    it('refuses production without STRIPE_SECRET_KEY, naming both ways out', () => {
      expect(() => loadConfig({ NODE_ENV: 'production' }, { cwd })).toThrow(ConfigError)
      expect(() => loadConfig({ NODE_ENV: 'production', STRIPE_SECRET_KEY: '' }, { cwd })).toThrow(
        'Invalid configuration: NODE_ENV=production needs STRIPE_SECRET_KEY to take card payments. ' +
          'Set ALLOW_TEST_PAYMENTS=true only if this server must run without charging cards.',
      )
    })

    it('starts production on the test gateway only with ALLOW_TEST_PAYMENTS=true', () => {
      const config = loadConfig({ NODE_ENV: 'production', ALLOW_TEST_PAYMENTS: 'true' }, { cwd })
      expect(config).toMatchObject({ production: true, allowTestPayments: true })
      expect(config.stripeSecretKey).toBeUndefined()
      expect(() =>
        loadConfig({ NODE_ENV: 'production', ALLOW_TEST_PAYMENTS: 'yes' }, { cwd }),
      ).toThrow('ALLOW_TEST_PAYMENTS must be true or false')
    })

    it('refuses production on PostgreSQL without the shared secrets, naming the missing ones', () => {
      const postgres = {
        NODE_ENV: 'production',
        STRIPE_SECRET_KEY: 'sk_live_x',
        DATABASE_URL: 'postgres://glow_app:pw@db:5432/glow',
      }
      const jwt = 'j'.repeat(64)
      const key = '0f'.repeat(32)
      expect(() => loadConfig(postgres, { cwd })).toThrow(
        'Invalid configuration: NODE_ENV=production with DATABASE_URL needs JWT_SECRET and ' +
          'DATA_ENCRYPTION_KEY, the same in every server process on that database; make each ' +
          'with `openssl rand -hex 32`.',
      )
      expect(() => loadConfig({ ...postgres, JWT_SECRET: jwt }, { cwd })).toThrow(
        'Invalid configuration: NODE_ENV=production with DATABASE_URL needs DATA_ENCRYPTION_KEY, ' +
          'the same in every server process on that database; make it with `openssl rand -hex 32`.',
      )
      // An empty value copied from .env.example is missing too.
      expect(() =>
        loadConfig({ ...postgres, JWT_SECRET: '', DATA_ENCRYPTION_KEY: key }, { cwd }),
      ).toThrow('needs JWT_SECRET, the same in every server process')
      expect(
        loadConfig({ ...postgres, JWT_SECRET: jwt, DATA_ENCRYPTION_KEY: key }, { cwd }),
      ).toMatchObject({ jwtSecret: jwt, dataKey: key, databaseUrl: postgres.DATABASE_URL })
      // PGlite is one process's database, and development keeps generating them in DATA_DIR.
      const { DATABASE_URL: _url, ...pglite } = postgres
      expect(loadConfig(pglite, { cwd })).toMatchObject({
        jwtSecret: undefined,
        dataKey: undefined,
      })
      expect(
        loadConfig({ DATABASE_URL: postgres.DATABASE_URL, NODE_ENV: 'development' }, { cwd }),
      ).toMatchObject({ jwtSecret: undefined, dataKey: undefined })
    })

    it('seeds the demo practice outside production only, unless SEED_DEMO says otherwise', () => {
      const live = { NODE_ENV: 'production', STRIPE_SECRET_KEY: 'sk_live_x' }
      expect(loadConfig(live, { cwd }).seedDemo).toBe(false)
      expect(loadConfig({ ...live, SEED_DEMO: 'true' }, { cwd }).seedDemo).toBe(true)
      expect(loadConfig({}, { cwd }).seedDemo).toBe(true)
      expect(loadConfig({ SEED_DEMO: 'false' }, { cwd }).seedDemo).toBe(false)
      expect(loadConfig({ SEED_DEMO: '' }, { cwd }).seedDemo).toBe(true)
    })
  })

  it('reaches Nextech at its own addresses in production, the sandbox elsewhere, or where it is told', () => {
    const production = { NODE_ENV: 'production', ALLOW_TEST_PAYMENTS: 'true' }
    expect(loadConfig(production, { cwd }).nextech).toEqual({
      tokenUrl: 'https://login.microsoftonline.com/nextech-api.com/oauth2/token',
      apiUrl: 'https://select.nextech-api.com/api',
    })
    // Outside production, unset: no address, so the built-in sandbox answers.
    expect(loadConfig({}, { cwd }).nextech).toBeUndefined()
    const staging = {
      NEXTECH_TOKEN_URL: 'https://login.example.test/nextech-api.com/oauth2/token',
      NEXTECH_API_URL: 'https://fhir.example.test/api/',
    }
    expect(loadConfig({ ...production, ...staging }, { cwd }).nextech).toEqual({
      tokenUrl: 'https://login.example.test/nextech-api.com/oauth2/token',
      apiUrl: 'https://fhir.example.test/api',
    })
    expect(() => loadConfig({ NEXTECH_TOKEN_URL: staging.NEXTECH_TOKEN_URL }, { cwd })).toThrow(
      'Invalid configuration: NEXTECH_TOKEN_URL and NEXTECH_API_URL go together; missing NEXTECH_API_URL',
    )
    expect(() => loadConfig({ ...staging, NEXTECH_API_URL: 'fhir.example.test' }, { cwd })).toThrow(
      'Invalid configuration: NEXTECH_API_URL must be an http(s) address',
    )
  })

  it('serves dist/ by default only when it has an index.html; empty SERVE_DIST means API only', () => {
    expect(loadConfig({}, { cwd }).distDir).toBeUndefined()
    mkdirSync(join(cwd, 'dist'))
    writeFileSync(join(cwd, 'dist', 'index.html'), '<!doctype html>')
    expect(loadConfig({}, { cwd }).distDir).toBe(join(cwd, 'dist'))
    expect(loadConfig({ SERVE_DIST: '' }, { cwd }).distDir).toBeUndefined()
    expect(loadConfig({ PORT: '8080' }, { cwd }).publicUrl).toBe('http://localhost:8080')
  })

  it('names the variable that is wrong', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PORT: 'eighty' }, /PORT/],
      [{ PORT: '70000' }, /PORT/],
      [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
      [{ PUBLIC_URL: 'localhost:3000' }, /PUBLIC_URL/],
      [{ JWT_SECRET: 'short' }, /JWT_SECRET/],
      [{ ALLOWED_ORIGINS: 'not a url' }, /ALLOWED_ORIGINS/],
      [{ SMTP_URL: 'https://mail.example.com' }, /SMTP_URL must be an smtp:\/\/ or smtps:\/\//],
      [{ SMTP_URL: 'mail.example.com:587' }, /SMTP_URL/],
      [{ MAIL_FROM: 'Glow Rewards' }, /MAIL_FROM must be an e-mail address/],
      [{ TWILIO_ACCOUNT_SID: 'AC123' }, /TWILIO_ACCOUNT_SID must be AC followed by 32/],
      [{ TWILIO_FROM: '5550100100' }, /TWILIO_FROM must be a number in E\.164 form/],
    ]
    for (const [env, message] of cases) {
      expect(() => loadConfig(env, { cwd })).toThrow(ConfigError)
      expect(() => loadConfig(env, { cwd })).toThrow(message)
    }
  })

  it('sends through SMTP with a bare MAIL_FROM address, and e-mail only when SMTP_URL is set', () => {
    expect(
      loadConfig({ SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'no-reply@x.example' }, { cwd }),
    ).toMatchObject({ smtpUrl: 'smtp://mail.example.com', mailFrom: 'no-reply@x.example' })
  })

  it('takes the three TWILIO_* together, a Messaging Service SID as sender, and refuses half of them', () => {
    const account = {
      TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef',
      TWILIO_AUTH_TOKEN: 'token',
      TWILIO_FROM: 'MG0123456789abcdef0123456789abcdef',
    }
    expect(loadConfig(account, { cwd }).twilio).toEqual({
      accountSid: 'AC0123456789abcdef0123456789abcdef',
      authToken: 'token',
      from: 'MG0123456789abcdef0123456789abcdef',
    })
    expect(() => loadConfig({ ...account, TWILIO_FROM: '' }, { cwd })).toThrow(
      'Invalid configuration: TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM go together; missing TWILIO_FROM',
    )
    expect(() => loadConfig({ TWILIO_AUTH_TOKEN: 'token' }, { cwd })).toThrow(
      /missing TWILIO_ACCOUNT_SID, TWILIO_FROM$/,
    )
  })

  it('takes an S3-compatible bucket with its endpoint and both keys, or none of them', () => {
    const bucket = {
      S3_ENDPOINT: 'https://s3.eu-west-1.amazonaws.com/',
      S3_BUCKET: 'glow-uploads',
      S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      S3_SECRET_ACCESS_KEY: 'secret',
    }
    expect(loadConfig(bucket, { cwd }).s3).toEqual({
      endpoint: 'https://s3.eu-west-1.amazonaws.com',
      bucket: 'glow-uploads',
      region: 'us-east-1',
      accessKeyId: 'AKIAEXAMPLE',
      secretAccessKey: 'secret',
    })
    expect(loadConfig({ ...bucket, S3_REGION: 'eu-west-1' }, { cwd }).s3?.region).toBe('eu-west-1')
    expect(loadConfig({ S3_ENDPOINT: '', S3_BUCKET: '' }, { cwd }).s3).toBeUndefined()
    expect(() => loadConfig({ ...bucket, S3_SECRET_ACCESS_KEY: '' }, { cwd })).toThrow(
      'Invalid configuration: S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together; missing S3_SECRET_ACCESS_KEY',
    )
    expect(() =>
      loadConfig({ ...bucket, S3_ENDPOINT: 'https://s3.example.com/glow-uploads' }, { cwd }),
    ).toThrow('S3_ENDPOINT must be the http(s) address of the S3 service without a path')
    expect(() => loadConfig({ ...bucket, S3_BUCKET: 'Glow_Uploads' }, { cwd })).toThrow(
      'S3_BUCKET must be a bucket name',
    )
  })
})
