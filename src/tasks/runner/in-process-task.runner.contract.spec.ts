import { describeTaskRunnerContract } from '../../testing/index';
import { InProcessTaskRunner } from './in-process-task.runner';

describeTaskRunnerContract('InProcessTaskRunner', () => new InProcessTaskRunner());
