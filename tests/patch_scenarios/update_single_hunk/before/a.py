import os

print('hi')
