import { Input, SimpleGrid, Stack } from '@mantine/core'
import type { Stripe, StripeCardNumberElement, StripeElementChangeEvent } from '@stripe/stripe-js'
import { useEffect, useRef, useState } from 'react'
import { FailureAlert } from '#src/ui/failure-alert.tsx'

/** Stripe.js and the card-number Element it mounted: what a token is made from. */
export type MountedStripeCard = { stripe: Stripe; cardNumber: StripeCardNumberElement }

/** Props of {@link StripeCardElements}. */
export type StripeCardElementsProps = {
  /**
   * Loads Stripe.js with the configured key (the page passes its payment module's loader, so this
   * component stays apart from the API).
   */
  load: () => Promise<Stripe | null>
  /** Called with the mounted card once ready, and with null when it goes away. */
  onReady: (card: MountedStripeCard | null) => void
}

const FAILED_TO_LOAD = 'The secure card form could not be loaded. Please reload the page.'

type ElementName = 'number' | 'expiry' | 'cvc'

/**
 * Stripe mode's card fields: Stripe Elements for the number, the expiry and the CVC (split
 * fields), mounted into frames Stripe controls, so the card never touches our page. Loaded on
 * demand together with Stripe.js; the test gateway never loads it. The sign-up's billing step and
 * the card change in Settings both use it.
 */
export default function StripeCardElements({ load, onReady }: StripeCardElementsProps) {
  const numberRef = useRef<HTMLDivElement>(null)
  const expiryRef = useRef<HTMLDivElement>(null)
  const cvcRef = useRef<HTMLDivElement>(null)
  const [errors, setErrors] = useState<Partial<Record<ElementName, string>>>({})
  const [loadError, setLoadError] = useState<string | null>(null)
  const onReadyRef = useRef(onReady)
  onReadyRef.current = onReady
  // Stripe.js loads once, when the fields first mount: a new loader later changes nothing.
  const loadRef = useRef(load)

  useEffect(() => {
    let cancelled = false
    const mounted: Array<{ destroy: () => void }> = []
    const track = (name: ElementName) => (event: StripeElementChangeEvent) =>
      setErrors((current) => ({ ...current, [name]: event.error?.message }))
    loadRef
      .current()
      .then((stripe) => {
        if (cancelled) return
        const [numberNode, expiryNode, cvcNode] = [
          numberRef.current,
          expiryRef.current,
          cvcRef.current,
        ]
        if (!stripe || !numberNode || !expiryNode || !cvcNode) {
          setLoadError(FAILED_TO_LOAD)
          return
        }
        const elements = stripe.elements()
        const number = elements.create('cardNumber', { showIcon: true })
        const expiry = elements.create('cardExpiry')
        const cvc = elements.create('cardCvc')
        number.mount(numberNode)
        expiry.mount(expiryNode)
        cvc.mount(cvcNode)
        number.on('change', track('number'))
        expiry.on('change', track('expiry'))
        cvc.on('change', track('cvc'))
        mounted.push(number, expiry, cvc)
        onReadyRef.current({ stripe, cardNumber: number })
      })
      .catch(() => {
        if (!cancelled) setLoadError(FAILED_TO_LOAD)
      })
    return () => {
      cancelled = true
      for (const element of mounted) element.destroy()
      onReadyRef.current(null)
    }
  }, [])

  const frame = { padding: '8px 12px', minHeight: 36 }
  return (
    <Stack gap="md">
      <FailureAlert>{loadError}</FailureAlert>
      <Input.Wrapper label="Card number" withAsterisk error={errors.number}>
        <Input component="div" ref={numberRef} style={frame} />
      </Input.Wrapper>
      <SimpleGrid cols={2} spacing="md">
        <Input.Wrapper label="Expiration date" withAsterisk error={errors.expiry}>
          <Input component="div" ref={expiryRef} style={frame} />
        </Input.Wrapper>
        <Input.Wrapper label="CVV" withAsterisk error={errors.cvc}>
          <Input component="div" ref={cvcRef} style={frame} />
        </Input.Wrapper>
      </SimpleGrid>
    </Stack>
  )
}
