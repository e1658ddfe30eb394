import { createFileRoute, notFound, useRouter } from '@tanstack/react-router'
import { useState } from 'react'
import * as v from 'valibot'
import { can, toRole } from '#domain/permissions.ts'
import { formatPhone } from '#domain/phone.ts'
import { adjustPoints, getLedger, reverseEntry } from '#src/api/ledger.ts'
import {
  getMembershipBank,
  getPaymentAccount,
  listMembershipEvents,
  listPatientMemberships,
  listPlans,
} from '#src/api/memberships.ts'
import {
  archivePatient,
  getPatient,
  patientSaveFailure,
  restorePatient,
  updatePatient,
} from '#src/api/patients.ts'
import { listProcedures } from '#src/api/procedures.ts'
import { claimPromotion, listPatientPromotions, listPromotions } from '#src/api/promotions.ts'
import { MembershipPanel } from '#src/features/memberships/membership-panel.tsx'
import { membershipCalls } from '#src/features/memberships/memberships.actors.ts'
import { MergeDialog } from '#src/features/patients/merge-dialog.tsx'
import { PatientFormModal, toPatientInput, valuesOf } from '#src/features/patients/patient-form.tsx'
import { PatientProfile } from '#src/features/patients/patient-profile.tsx'
import { PatientOffers } from '#src/features/promotions/patient-offers.tsx'
import { loadData, readPart } from '#src/lib/load-data.ts'
import { useAction } from '#src/lib/use-action.ts'
import { AreaPage } from '#src/ui/area-page.tsx'
import { mergeCalls, searchMergePatients } from './-patient-merge-calls.ts'

const ProfileSearchSchema = v.object({
  history: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
})

/** A key made once per action the person starts, so a double click or a retry posts once. */
const newKey = () => `web-${crypto.randomUUID()}`

export const Route = createFileRoute('/_shell/patients/$patientId')({
  validateSearch: (search): { history?: number } => {
    const parsed = v.safeParse(ProfileSearchSchema, search)
    return parsed.success && parsed.output.history > 1 ? parsed.output : {}
  },
  loaderDeps: ({ search }) => ({ history: search.history ?? 1 }),
  loader: ({ params, deps, context }) => {
    // Ids are positive integers; anything else is an unknown page, not a server error.
    if (!/^[1-9]\d{0,9}$/.test(params.patientId)) throw notFound()
    const id = Number(params.patientId)
    return loadData(async () => {
      const [patient, ledger, claims, live, membership] = await Promise.all([
        getPatient(id),
        getLedger(id, deps.history),
        listPatientPromotions(id),
        listPromotions({ status: 'live', pageSize: 100 }),
        loadMembership(id, context.session.practice.id),
      ])
      // A merged record links to the patient it was merged into, by name.
      const kept = patient.merged_into_id
        ? await getPatient(patient.merged_into_id).catch(() => undefined)
        : undefined
      const mergedInto = kept
        ? { id: kept.id, name: `${kept.first_name} ${kept.last_name}` }
        : undefined
      return { patient, ledger, claims, liveOffers: live.data, mergedInto, membership }
    })
  },
  component: PatientPage,
})

/**
 * The membership panel's data: the patient's memberships, the history and the bank of the one
 * shown, the plans to join or move to, the treatments' names and the payment account. Read apart from the
 * rest of the profile: when it fails, the panel says why and the profile still shows.
 */
async function loadMembership(patientId: number, practiceId: number) {
  const [memberships, plans, treatments, account] = await Promise.all([
    readPart(() => listPatientMemberships(patientId)),
    readPart(() => listPlans()),
    readPart(() => listProcedures(practiceId)),
    readPart(getPaymentAccount),
  ])
  const list = memberships.ok ? memberships.value : []
  const shown = list.find((m) => m.status !== 'cancelled' && m.status !== 'ended') ?? list[0]
  const [events, bank] = shown
    ? await Promise.all([
        readPart(() => listMembershipEvents(shown.id)),
        readPart(() => getMembershipBank(shown.id)),
      ])
    : [{ ok: true, value: [] } as const, { ok: true, value: null } as const]
  return {
    memberships: memberships.ok ? memberships.value : memberships.message,
    events: events.ok ? events.value : events.message,
    bank: bank.ok ? bank.value : bank.message,
    plans: plans.ok ? plans.value.filter((plan) => !plan.archived) : [],
    treatmentNames: new Map((treatments.ok ? treatments.value : []).map((t) => [t.id, t.name])),
    account: account.ok ? account.value : null,
  }
}

function PatientPage() {
  const { patient, ledger, claims, liveOffers, mergedInto, membership } = Route.useLoaderData()
  const role = Route.useRouteContext({ select: (c) => toRole(c.session.user.access_rights) })
  const navigate = Route.useNavigate()
  const router = useRouter()
  const [editing, setEditing] = useState(false)
  const [merging, setMerging] = useState(false)
  const [calls, setCalls] = useState(mergeCalls)
  // One key per opened dialog: a second click of the same save is the same change.
  const [adjustKey, setAdjustKey] = useState(newKey)
  const action = useAction()
  return (
    <AreaPage title={`${patient.first_name} ${patient.last_name}`} description="Patient profile">
      <PatientProfile
        patient={patient}
        ledger={ledger}
        can={{
          adjust: can(role, 'points.adjust'),
          archive: can(role, 'patients.archive'),
          merge: can(role, 'patients.merge'),
        }}
        mergedInto={mergedInto}
        onMerge={() => {
          setCalls(mergeCalls())
          setMerging(true)
        }}
        onEdit={() => setEditing(true)}
        onAdjust={(points, reason) =>
          action.run(
            () => adjustPoints(patient.id, { points, reason, idempotencyKey: adjustKey }),
            { onSuccess: () => setAdjustKey(newKey()) },
          )
        }
        onReverse={(entry, reason) =>
          action.run(() =>
            reverseEntry(entry.id, { reason, idempotencyKey: `reverse-${entry.id}-${adjustKey}` }),
          )
        }
        onArchive={(archived) =>
          action.run(() => (archived ? archivePatient(patient.id) : restorePatient(patient.id)))
        }
        onLedgerPage={(history) => void navigate({ search: { history } })}
      />
      {!patient.merged_into_id && (
        <MembershipPanel
          patient={patient}
          {...membership}
          can={{
            enrol: can(role, 'memberships.enrol'),
            cancelNow: can(role, 'memberships.cancelNow'),
            connect: can(role, 'payments.connect'),
          }}
          calls={membershipCalls}
          onChanged={() => router.invalidate()}
        />
      )}
      {!patient.merged_into_id && (
        <PatientOffers
          patientId={patient.id}
          claims={claims}
          liveOffers={liveOffers}
          onClaim={(promotionId, code) =>
            action.run(() => claimPromotion({ promo: promotionId, patient_id: patient.id, code }))
          }
        />
      )}
      <MergeDialog
        opened={merging}
        onClose={() => {
          setMerging(false)
          void router.invalidate()
        }}
        first={{
          id: patient.id,
          name: `${patient.first_name} ${patient.last_name}`,
          detail:
            [formatPhone(patient.phone), patient.email].filter(Boolean).join(' · ') || undefined,
        }}
        searchPatients={searchMergePatients}
        preview={calls.preview}
        merge={calls.merge}
        onOpenKept={(keptId) => {
          setMerging(false)
          void navigate({ to: '/patients/$patientId', params: { patientId: String(keptId) } })
        }}
      />
      <PatientFormModal
        opened={editing}
        title="Edit details"
        submitLabel="Save changes"
        initial={valuesOf(patient)}
        onClose={() => setEditing(false)}
        onSave={(values) =>
          action.run(
            async () => {
              await updatePatient(patient.id, toPatientInput(values))
              setEditing(false)
            },
            { failure: patientSaveFailure },
          )
        }
      />
    </AreaPage>
  )
}
