import { render } from 'preact';
import { PlayApp } from './PlayApp.js';
import '../styles.css';
import './play.css';

render(<PlayApp />, document.getElementById('app')!);
