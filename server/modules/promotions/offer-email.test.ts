import { describe, expect, it } from 'vitest'
import { type OfferEmailProps, offerEmail } from './offer-email.ts'

const props: OfferEmailProps = {
  publicUrl: 'https://glow.example/',
  practice: {
    practice_name: 'Glow & Co',
    postal_address: '12 Main Street, Springfield, IL 62704',
    logo_url: 'https://glow.example/api/upload/files/7/logo',
  },
  unsubscribeId: 'unsub_Token-1',
  firstName: '<b>Ann & "Jo"</b>',
  token: 'claim_Token-2',
  offer: {
    title: 'Spring <peel>',
    description: ' Half off a peel & a mask.\nThis spring only. ',
    value: '$50.00 off HydraFacial',
  },
}

describe('the offer e-mail', () => {
  it('has the subject, the text part and the links of the offer, the name verbatim in the text', () => {
    const mail = offerEmail.render(props)
    expect(mail.subject).toBe('Glow & Co: Spring <peel>')
    expect(mail.link).toBe('https://glow.example/offers/claim_Token-2')
    expect(mail.headers).toEqual({
      'List-Unsubscribe':
        '<https://glow.example/api/unsubscribe/unsub_Token-1>, <https://glow.example/unsubscribe/unsub_Token-1>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    })
    expect(mail.text).toBe(
      [
        'Hello <b>Ann & "Jo"</b>,',
        'Glow & Co has an offer for you: Spring <peel>',
        '$50.00 off HydraFacial at your visit.',
        'Half off a peel & a mask.\nThis spring only.',
        'Claim it with the button below and show this e-mail at your next visit.',
        'Claim offer: https://glow.example/offers/claim_Token-2',
        [
          'Glow & Co',
          '12 Main Street, Springfield, IL 62704',
          'Logo: https://glow.example/api/upload/files/7/logo',
          "You receive this e-mail from Glow & Co's rewards programme. Unsubscribe: https://glow.example/unsubscribe/unsub_Token-1",
        ].join('\n'),
      ].join('\n\n'),
    )
  })

  it('escapes every value in the HTML part and carries the button, the logo, the address and the unsubscribe link', () => {
    const { html } = offerEmail.render(props)
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true)
    expect(html).toContain('<title>Glow &amp; Co: Spring &lt;peel&gt;</title>')
    expect(html).toContain('<h1 style="font-size:20px;margin:0 0 24px">Glow &amp; Co</h1>')
    expect(html).toContain('Hello &lt;b&gt;Ann &amp; &quot;Jo&quot;&lt;/b&gt;,')
    expect(html).not.toContain('<b>')
    expect(html).toContain('Glow &amp; Co has an offer for you: Spring &lt;peel&gt;')
    expect(html).toContain('Half off a peel &amp; a mask.<br/>This spring only.')
    expect(html).toContain(
      '<a href="https://glow.example/offers/claim_Token-2" style="background:#7b2d59;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">Claim offer</a>',
    )
    expect(html).toContain(
      '<img src="https://glow.example/api/upload/files/7/logo" alt="Glow &amp; Co logo"',
    )
    expect(html).toContain('Glow &amp; Co<br/>12 Main Street, Springfield, IL 62704')
    expect(html).toContain(
      '<a href="https://glow.example/unsubscribe/unsub_Token-1" style="color:#555555">Unsubscribe</a>',
    )
    // Mail clients have no use for the preload React adds for an eager image.
    expect(html).not.toContain('rel="preload"')
  })

  it('leaves out the value, the description, the logo and the address it does not have', () => {
    const mail = offerEmail.render({
      ...props,
      practice: { practice_name: 'Glow' },
      offer: { title: 'Peel', description: '  ', value: null },
    })
    expect(mail.text).toBe(
      [
        'Hello <b>Ann & "Jo"</b>,',
        'Glow has an offer for you: Peel',
        'Claim it with the button below and show this e-mail at your next visit.',
        'Claim offer: https://glow.example/offers/claim_Token-2',
        "Glow\nYou receive this e-mail from Glow's rewards programme. Unsubscribe: https://glow.example/unsubscribe/unsub_Token-1",
      ].join('\n\n'),
    )
    expect(mail.html).not.toContain('<img')
    expect(mail.html).toContain(
      '<p style="margin:32px 0 0;font-size:13px;color:#555555">You receive',
    )
  })
})
