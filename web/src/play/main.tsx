import { render } from 'preact';
import { PlayApp } from './PlayApp.js';
import { analyser } from './verdicts.js';
import '../styles.css';
import './play.css';

// The worker loads the engine while the page draws itself.
analyser().start();
// The first render in a task of its own, after the modules' evaluation: two shorter tasks instead of one long one.
setTimeout(() => render(<PlayApp />, document.getElementById('app')!), 0);
