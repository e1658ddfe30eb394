import { waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { NEXTECH_SYNC_MESSAGES, type NextechServiceCode } from '#domain/nextech.ts'
import type { CatalogueItem } from '#domain/practice-data.ts'
import { demoSession } from '#tests/support/demo-session.ts'
import { apiError, type FakeCall, stubApi } from '#tests/support/fake-api.ts'
import { findIntegrations, NEXTECH_BUSY, settingsApi } from '#tests/support/nextech.ts'
import { renderRoute } from '#tests/support/render.tsx'

function catalogueItem(id: number, name: string): CatalogueItem {
  return {
    id,
    practice_id: 1,
    name,
    price: 19900,
    points: 200,
    own_points: null,
    min_days_between: 0,
    archived: false,
  }
}

const laser: NextechServiceCode = {
  code: '17110',
  text: 'Laser, 1-14 lesions',
  lines: 3,
  mapped_to: null,
}
const serum: NextechServiceCode = {
  code: 'RET-SERUM',
  text: 'Vitamin C serum',
  lines: 1,
  mapped_to: null,
}
const facial: NextechServiceCode = {
  code: 'HF-01',
  text: 'Hydrafacial',
  lines: 5,
  mapped_to: { kind: 'procedure', id: 3, name: 'Hydrafacial' },
}

const CATALOGUE = {
  'GET /practice/integrations/nextech/review': { items: [] },
  'GET /procedures': [catalogueItem(3, 'Hydrafacial'), catalogueItem(5, 'Laser resurfacing')],
  'GET /products': [catalogueItem(4, 'Vitamin C serum')],
}

const puts = (calls: FakeCall[]) =>
  calls.filter((c) => c.method === 'PUT').map((c) => ({ path: c.path, body: c.body }))

async function openCodes() {
  const integrations = await findIntegrations()
  const codes = within(integrations).getByRole('region', { name: 'Unmapped service codes' })
  await within(codes).findAllByRole('article')
  return codes
}

describe('Settings → Integrations: unmapped service codes (Admin)', () => {
  it('maps a code to a procedure, re-pricing the bills already synced', async () => {
    const calls = stubApi(
      settingsApi(NEXTECH_BUSY, {
        ...CATALOGUE,
        'GET /practice/integrations/nextech/unmapped': { codes: [laser, serum, facial] },
        'PUT /practice/integrations/nextech/unmapped/17110': {
          codes: [
            serum,
            { ...laser, mapped_to: { kind: 'procedure', id: 5, name: 'Laser resurfacing' } },
            facial,
          ],
        },
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const codes = await openCodes()
    expect(codes).toHaveTextContent('2 service codes of synced bills have no catalogue item')
    const row = within(codes).getByRole('article', { name: 'Service code 17110' })
    expect(row).toHaveTextContent('17110 · Laser, 1-14 lesions')
    expect(row).toHaveTextContent('3 bill lines')
    expect(row).toHaveTextContent('Unmapped')
    expect(within(codes).getByRole('article', { name: 'Service code HF-01' })).toHaveTextContent(
      'Mapped to Hydrafacial (procedure)',
    )

    const picker = within(row).getByRole('combobox', { name: 'Catalogue item for 17110' })
    await waitFor(() => expect(picker).toBeEnabled())
    await user.click(picker)
    await user.click(within(row).getByRole('option', { name: 'Laser resurfacing' }))
    await user.click(
      within(row).getByRole('checkbox', { name: 'Also re-price the bills already synced' }),
    )
    await user.click(within(row).getByRole('button', { name: 'Save 17110' }))

    await waitFor(() =>
      expect(within(codes).getByRole('article', { name: 'Service code 17110' })).toHaveTextContent(
        'Mapped to Laser resurfacing (procedure)',
      ),
    )
    expect(codes).toHaveTextContent('1 service code of synced bills has no catalogue item')
    expect(puts(calls)).toEqual([
      {
        path: '/practice/integrations/nextech/unmapped/17110',
        body: { catalogue_item_id: 5, kind: 'procedure', apply_to_synced: true },
      },
    ])
  })

  it('maps a code to a product, for later bills only', async () => {
    const calls = stubApi(
      settingsApi(NEXTECH_BUSY, {
        ...CATALOGUE,
        'GET /practice/integrations/nextech/unmapped': { codes: [serum] },
        'PUT /practice/integrations/nextech/unmapped/RET-SERUM': {
          codes: [{ ...serum, mapped_to: { kind: 'product', id: 4, name: 'Vitamin C serum' } }],
        },
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const codes = await openCodes()
    const row = within(codes).getByRole('article', { name: 'Service code RET-SERUM' })
    const picker = within(row).getByRole('combobox', { name: 'Catalogue item for RET-SERUM' })
    await waitFor(() => expect(picker).toBeEnabled())
    await user.click(picker)
    await user.click(within(row).getByRole('option', { name: 'Vitamin C serum' }))
    await user.click(within(row).getByRole('button', { name: 'Save RET-SERUM' }))
    expect(await within(codes).findByText('Every service code is mapped.')).toBeVisible()
    expect(row).toHaveTextContent('Mapped to Vitamin C serum (product)')
    expect(puts(calls)).toEqual([
      {
        path: '/practice/integrations/nextech/unmapped/RET-SERUM',
        body: { catalogue_item_id: 4, kind: 'product', apply_to_synced: false },
      },
    ])
  })

  it('asks for an item before saving, and a refusal keeps the choices', async () => {
    const calls = stubApi(
      settingsApi(NEXTECH_BUSY, {
        ...CATALOGUE,
        'GET /practice/integrations/nextech/unmapped': { codes: [laser] },
        'PUT /practice/integrations/nextech/unmapped/17110': () =>
          apiError(404, NEXTECH_SYNC_MESSAGES.itemNotFound, 'NotFoundError'),
      }),
    )
    const { user } = renderRoute('/settings', { session: demoSession })
    const codes = await openCodes()
    const row = within(codes).getByRole('article', { name: 'Service code 17110' })
    const picker = within(row).getByRole('combobox', { name: 'Catalogue item for 17110' })
    await waitFor(() => expect(picker).toBeEnabled())
    await user.click(within(row).getByRole('button', { name: 'Save 17110' }))
    expect(picker).toHaveAccessibleDescription('Choose the procedure or product this code is.')
    expect(puts(calls)).toEqual([])

    await user.click(picker)
    await user.click(within(row).getByRole('option', { name: 'Hydrafacial' }))
    const reprice = within(row).getByRole('checkbox', {
      name: 'Also re-price the bills already synced',
    })
    await user.click(reprice)
    await user.click(within(row).getByRole('button', { name: 'Save 17110' }))
    expect(await within(row).findByRole('alert')).toHaveTextContent(
      NEXTECH_SYNC_MESSAGES.itemNotFound,
    )
    expect(picker).toHaveValue('Hydrafacial')
    expect(reprice).toBeChecked()
    expect(row).toHaveTextContent('Unmapped')
  })

  it('says every code is mapped when none is left', async () => {
    stubApi(
      settingsApi(NEXTECH_BUSY, {
        ...CATALOGUE,
        'GET /practice/integrations/nextech/unmapped': { codes: [] },
      }),
    )
    renderRoute('/settings', { session: demoSession })
    const integrations = await findIntegrations()
    const codes = within(integrations).getByRole('region', { name: 'Unmapped service codes' })
    expect(await within(codes).findByText('Every service code is mapped.')).toBeVisible()
    expect(within(codes).queryAllByRole('article')).toEqual([])
  })
})
