import { describeTaskRunnerContract } from '../../../test/contracts/task-runner.contract';
import { InProcessTaskRunner } from './in-process-task.runner';

describeTaskRunnerContract('InProcessTaskRunner', () => new InProcessTaskRunner());
