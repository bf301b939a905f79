// The worker side of the analyser: the SDK's engine, answering the page's analyses.
import { serveAnalysis } from '@solitaire-solver/sdk/analysis-worker';

serveAnalysis();
