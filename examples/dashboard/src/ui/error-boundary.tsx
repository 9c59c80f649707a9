import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  error: Error | null;
}

/** What a page that crashed shows instead of a blank screen: the error and a way back. */
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey: string }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override componentDidUpdate(previous: { resetKey: string }) {
    if (previous.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('The dashboard page failed', error, info.componentStack);
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="error-banner" role="alert">
        <p className="error-title">This page failed</p>
        <p>
          <code className="error-code">ERROR</code> {this.state.error.message}
        </p>
        <p>
          <a href="/">Back to the start</a>, or reload the page.
        </p>
      </div>
    );
  }
}
