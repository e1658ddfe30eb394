import { PasswordInput, type PasswordInputProps } from '@mantine/core'
import { useState } from 'react'

/**
 * A password input whose eye toggle is a real, named button ('Show password' / 'Hide password',
 * or the field's own label), reachable by keyboard and announced by screen readers; its error is
 * announced as an alert. Every secret the app asks for (passwords, the card number, the Nextech
 * password) uses it.
 */
export function PasswordField(props: Omit<PasswordInputProps, 'visible' | 'onVisibilityChange'>) {
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
