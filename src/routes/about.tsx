import { List, Text } from '@mantine/core'
import { createFileRoute } from '@tanstack/react-router'
import { DocumentPage } from '#src/features/documents/document-page.tsx'

/** About Glow Rewards, public: the footer's About opens it when the practice set no link. */
export const Route = createFileRoute('/about')({
  component: AboutPage,
})

function AboutPage() {
  return (
    <DocumentPage title="About Glow Rewards">
      <Text>
        Glow Rewards is the portal a medical or aesthetic practice uses to run a rewards and
        membership programme for its clients: points for every visit, offers clients claim and
        redeem, and the numbers that show what the programme brings back.
      </Text>
      <List spacing={4}>
        <List.Item>
          The front desk finds a patient in seconds, records visits and redeems rewards with the
          patient's code.
        </List.Item>
        <List.Item>
          Managers build offers, send them to patients and watch the dashboard's figures.
        </List.Item>
        <List.Item>
          The owner sets the programme rules, the practice details and who on the staff may do what;
          every action is kept in the activity log.
        </List.Item>
      </List>
      <Text>
        Client data stays the practice's own: the Terms and the Business Associates Agreement say
        how it is protected.
      </Text>
    </DocumentPage>
  )
}
