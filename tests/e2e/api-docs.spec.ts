import { expect, test } from './support/fixtures.ts'

type OpenApiDocument = { paths: Record<string, Record<string, { summary: string }>> }

test.describe('the API reference at /api/docs', () => {
  test('renders every operation of the document, under the CSP, from this server only', async ({
    page,
    request,
    baseURL,
  }) => {
    const cspReports: string[] = []
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to (execute|load|apply|connect)/i.test(message.text())) {
        cspReports.push(message.text())
      }
    })
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(`Content Security Policy: ${event.violatedDirective} ${event.blockedURI}`)
      })
    })
    const foreign: string[] = []
    page.on('request', (sent) => {
      const url = new URL(sent.url())
      if (url.protocol.startsWith('http') && url.origin !== new URL(baseURL ?? '').origin) {
        foreign.push(sent.url())
      }
    })

    const openapi = (await (await request.get('/api/openapi.json')).json()) as OpenApiDocument
    const operations = Object.values(openapi.paths).flatMap((item) => Object.values(item))
    expect(operations.length).toBeGreaterThan(35)

    const response = await page.goto('/api/docs')
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'")
    await expect(page.getByRole('heading', { name: /Glow Rewards API/ })).toBeVisible()
    // Each operation appears once, by its summary, in its tag's section. Swagger UI draws a long
    // list only where the reader is (a virtual list from 150 rows on), so the reader scrolls: the
    // last operation drawn is brought to the top until every one of them has been drawn.
    const drawn = new Map<string, string>()
    const collect = async () => {
      const rows = await page.locator('.opblock').evaluateAll((blocks) =>
        blocks.map((block) => ({
          id: block.id,
          summary: block.querySelector('.opblock-summary-description')?.textContent ?? '',
        })),
      )
      for (const { id, summary } of rows) drawn.set(id, summary)
      return drawn.size
    }
    await expect(page.locator('.opblock').first()).toBeVisible()
    while ((await collect()) < operations.length) {
      const before = drawn.size
      await page
        .locator('.opblock')
        .last()
        .evaluate((block) => block.scrollIntoView())
      await expect
        .poll(collect, { message: 'scrolling draws further operations' })
        .toBeGreaterThan(before)
    }
    expect(drawn.size).toBe(operations.length)
    expect([...drawn.values()].sort()).toEqual(operations.map(({ summary }) => summary).sort())

    // The tag filter narrows the page to the sections it finds: Memberships first, and Reports,
    // which holds the memberships report; none other.
    await page.evaluate(() => window.scrollTo(0, 0))
    await page.getByPlaceholder('Filter by tag').fill('Memberships')
    await expect(page.getByRole('heading', { name: /^Memberships/ })).toBeVisible()
    await expect(page.getByRole('heading', { name: /^Authentication/ })).toHaveCount(0)
    const sections = await page
      .locator('.opblock-tag')
      .evaluateAll((tags) => tags.map((tag) => tag.querySelector('a span, a')?.textContent ?? ''))
    expect(sections.length).toBeLessThan(3)
    expect(sections[0]).toMatch(/^Memberships/)
    await page.getByPlaceholder('Filter by tag').fill('')

    // An operation opens to its parameters and answers.
    await page.getByText('Sign in', { exact: true }).first().click()
    await expect(
      page.getByText('Invalid Email or Password (also a refused body or captcha).'),
    ).toBeVisible()

    expect(cspReports, 'CSP violations').toEqual([])
    expect(foreign, 'requests to other hosts').toEqual([])
  })
})
