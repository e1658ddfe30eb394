import { Alert, Stack } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { useActorRef } from '@xstate/react'
import { useEffect } from 'react'
import * as v from 'valibot'
import { can, toRole } from '#domain/permissions.ts'
import {
  type CheckoutInput,
  type CheckoutItem,
  type CheckoutPatient,
  checkoutMachine,
} from '#machines/checkout/checkout.machine.ts'
import { getAppointment } from '#src/api/appointments.ts'
import { listCatalogue } from '#src/api/catalogue.ts'
import { getPatient, listPatients } from '#src/api/patients.ts'
import { checkoutActors } from '#src/features/checkout/checkout.actors.ts'
import { CheckoutView, toCheckoutItem } from '#src/features/checkout/checkout-view.tsx'
import { loadData } from '#src/lib/load-data.ts'
import { CHECKOUT_PROGRESS_KEY } from '#src/lib/storage-keys.ts'
import { AreaPage } from '#src/ui/area-page.tsx'
import { ButtonLink } from '#src/ui/links.tsx'
import { type PatientChoice, patientChoice } from '#src/ui/patient-picker.tsx'

const Id = v.pipe(v.unknown(), v.transform(Number), v.integer(), v.minValue(1))
const CheckoutSearchSchema = v.object({
  patientId: v.optional(Id),
  appointmentId: v.optional(Id),
})
type CheckoutSearch = { patientId?: number; appointmentId?: number }

export const Route = createFileRoute('/_shell/checkout')({
  validateSearch: (search): CheckoutSearch => {
    const parsed = v.safeParse(CheckoutSearchSchema, search)
    return parsed.success ? parsed.output : {}
  },
  loaderDeps: ({ search }) => ({
    patientId: search.patientId,
    appointmentId: search.appointmentId,
  }),
  loader: ({ context, deps }) =>
    loadData(async () => {
      const practiceId = context.session.practice.id
      const [procedures, products, appointment] = await Promise.all([
        listCatalogue('procedures', practiceId),
        listCatalogue('products', practiceId),
        deps.appointmentId ? getAppointment(deps.appointmentId) : null,
      ])
      const patientId = appointment?.patient_id ?? deps.patientId
      const patient = patientId ? await getPatient(patientId) : null
      return {
        procedures: procedures.filter((p) => !p.archived),
        products: products.filter((p) => !p.archived),
        appointment,
        patient: patient
          ? { id: patient.id, name: `${patient.first_name} ${patient.last_name}` }
          : null,
      }
    }),
  component: CheckoutPage,
})

async function searchPatients(term: string): Promise<PatientChoice[]> {
  const page = await listPatients({ search: term, pageSize: 10 })
  return page.data.map(patientChoice)
}

/** What a reload must not lose: the checkout's one idempotency key and its lines. */
type StoredCheckout = {
  scope: string
  idempotencyKey: string
  patient: CheckoutPatient | null
  items: CheckoutItem[]
}

function readStored(scope: string): StoredCheckout | null {
  try {
    const stored = JSON.parse(
      sessionStorage.getItem(CHECKOUT_PROGRESS_KEY) ?? 'null',
    ) as StoredCheckout | null
    return stored?.scope === scope && typeof stored.idempotencyKey === 'string' ? stored : null
  } catch {
    return null
  }
}

function CheckoutPage() {
  const data = Route.useLoaderData()
  const scope = `${data.patient?.id ?? ''}:${data.appointment?.id ?? ''}`
  const { appointment } = data
  if (appointment && appointment.status !== 'scheduled') {
    return (
      <AreaPage title="Checkout" description="Record a visit, its points and a redemption.">
        <Stack gap="md" maw={640}>
          <Alert color="red" role="alert" title="This appointment cannot be completed">
            {appointment.status === 'completed'
              ? 'This appointment is already completed. A manager can reverse its visit’s points from the patient’s profile.'
              : 'This appointment was cancelled. Record the visit without it instead.'}
          </Alert>
          <ButtonLink
            to="/patients/$patientId"
            params={{ patientId: String(appointment.patient_id) }}
            variant="default"
            w="fit-content"
          >
            Open the patient's profile
          </ButtonLink>
        </Stack>
      </AreaPage>
    )
  }
  return (
    <AreaPage title="Checkout" description="Record a visit, its points and a redemption.">
      {/* A new patient or appointment in the address is a new checkout. */}
      <CheckoutScreen key={scope} scope={scope} />
    </AreaPage>
  )
}

function CheckoutScreen({ scope }: { scope: string }) {
  const { procedures, products, appointment, patient } = Route.useLoaderData()
  const role = Route.useRouteContext({ select: (c) => toRole(c.session.user.access_rights) })
  const procedure = procedures.find((p) => p.id === appointment?.procedure_id)
  const actorRef = useActorRef(
    checkoutMachine.provide({
      actors: checkoutActors,
      actions: {
        // The visit is recorded: the next checkout gets a new key.
        onRecorded: () => sessionStorage.removeItem(CHECKOUT_PROGRESS_KEY),
      },
    }),
    {
      input: ((): CheckoutInput => {
        const stored = readStored(scope)
        return {
          idempotencyKey: stored?.idempotencyKey ?? `visit-${crypto.randomUUID()}`,
          canOverride: can(role, 'redeem.override'),
          canApprove: can(role, 'visits.approve'),
          patient: patient ?? stored?.patient ?? null,
          appointment: appointment
            ? {
                id: appointment.id,
                item: procedure ? toCheckoutItem('procedure', procedure) : null,
              }
            : null,
          items: stored?.items ?? [],
        }
      })(),
    },
  )
  useEffect(() => {
    const subscription = actorRef.subscribe((snapshot) => {
      if (snapshot.matches('done') || snapshot.matches('undone')) return
      const stored: StoredCheckout = {
        scope,
        idempotencyKey: snapshot.context.idempotencyKey,
        patient: snapshot.context.patient,
        items: snapshot.context.items,
      }
      sessionStorage.setItem(CHECKOUT_PROGRESS_KEY, JSON.stringify(stored))
    })
    return () => subscription.unsubscribe()
  }, [actorRef, scope])
  return (
    <CheckoutView
      actorRef={actorRef}
      procedures={procedures}
      products={products}
      searchPatients={searchPatients}
    />
  )
}
