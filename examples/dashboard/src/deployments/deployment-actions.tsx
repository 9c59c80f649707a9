import type { Deployment } from '@stratbox/client';
import { useState } from 'react';
import { navigate } from '../routing/navigate.js';
import { routePath } from '../routing/route.js';
import { useClient } from '../session/session-context.js';
import { ConfirmDialog } from '../ui/confirm-dialog.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { useAction } from '../ui/use-action.js';

type Action = 'stop' | 'restart' | 'delete';

const QUESTIONS: Record<Action, { title: string; confirm: string; body: string; danger: boolean }> = {
  stop: {
    title: 'Stop this deployment?',
    confirm: 'Stop deployment',
    body: 'The strategy stops, its open orders are cancelled and its positions are closed at market.',
    danger: true,
  },
  restart: {
    title: 'Restart this deployment?',
    confirm: 'Restart deployment',
    body: 'The strategy starts again from its warm-up on the same account and symbols, with the same risk limits (a halt is cleared, and drawdown is measured from the new start); orders left open are looked up, never sent twice.',
    danger: false,
  },
  delete: {
    title: 'Delete this deployment?',
    confirm: 'Delete deployment',
    body: 'It is stopped first if it runs (orders cancelled, positions closed), then removed with its orders and log. This cannot be undone.',
    danger: true,
  },
};

/** Stop, restart and delete, each asked first in a dialog; `onChanged` gets the deployment after stop or restart. */
export function DeploymentActions({ deployment, onChanged }: { deployment: Deployment; onChanged(deployment: Deployment): void }) {
  const client = useClient();
  const [asking, setAsking] = useState<Action | null>(null);
  const change = useAction();
  const { status } = deployment;
  const canStop = status === 'starting' || status === 'running' || status === 'halted' || status === 'failed';
  const canRestart = status === 'running' || status === 'halted' || status === 'stopped' || status === 'failed';

  async function confirm() {
    if (!asking) return;
    const params = { params: { id: deployment.id } };
    await change.run(async () => {
      if (asking === 'delete') {
        await client.deployments.delete(params);
        navigate(routePath({ name: 'deployments' }));
        return;
      }
      onChanged(asking === 'stop' ? await client.deployments.stop(params) : await client.deployments.restart(params));
    });
    setAsking(null);
  }

  const question = asking ? QUESTIONS[asking] : null;
  return (
    <div className="deployment-actions">
      <div className="actions">
        {canStop ? (
          <button type="button" className="danger" onClick={() => setAsking('stop')}>
            Stop
          </button>
        ) : null}
        {canRestart ? (
          <button type="button" onClick={() => setAsking('restart')}>
            Restart
          </button>
        ) : null}
        <button type="button" className="danger" onClick={() => setAsking('delete')}>
          Delete
        </button>
      </div>
      <ErrorBanner error={change.error} title="The deployment did not change" />
      <ConfirmDialog
        open={question !== null}
        title={question?.title ?? ''}
        confirmLabel={question?.confirm ?? ''}
        danger={question?.danger}
        busy={change.busy}
        onConfirm={confirm}
        onCancel={() => setAsking(null)}
      >
        <p>{question?.body}</p>
      </ConfirmDialog>
    </div>
  );
}
