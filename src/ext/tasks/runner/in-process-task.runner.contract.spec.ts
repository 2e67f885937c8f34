import { describeTaskRunnerContract } from '../../../entry/testing';
import { InProcessTaskRunner } from './in-process-task.runner';

describeTaskRunnerContract('InProcessTaskRunner', () => new InProcessTaskRunner());
