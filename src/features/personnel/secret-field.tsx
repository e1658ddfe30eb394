import { PasswordInput, type PasswordInputProps } from '@mantine/core'
import { useState } from 'react'

/**
 * A password input whose eye toggle is a named button ('Show password' / 'Hide password'),
 * reachable by keyboard and announced by screen readers; errors are announced as alerts.
 */
export function SecretField(props: Omit<PasswordInputProps, 'visible' | 'onVisibilityChange'>) {
  const [visible, setVisible] = useState(false)
  const name = typeof props.label === 'string' ? props.label.toLowerCase() : 'password'
  return (
    <PasswordInput
      {...props}
      visible={visible}
      onVisibilityChange={setVisible}
      errorProps={{ role: 'alert' }}
      visibilityToggleButtonProps={{
        'aria-label': `${visible ? 'Hide' : 'Show'} ${name}`,
        'aria-hidden': false,
        tabIndex: 0,
      }}
    />
  )
}
