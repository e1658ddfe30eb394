import { Alert } from '@mantine/core'

/** The sentence of the last change in a section: a success, or why it was refused. */
export function Outcome({ message, error }: { message: string | null; error: string | null }) {
  if (error) {
    return (
      <Alert color="red" role="alert">
        {error}
      </Alert>
    )
  }
  if (message) {
    return (
      <Alert color="green" role="status">
        {message}
      </Alert>
    )
  }
  return null
}
